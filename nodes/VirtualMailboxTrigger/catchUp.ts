import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { type Account, accountOf, digest } from '../shared/account';
import { CREDENTIAL_TYPE, PAGE_SIZE_MAX } from '../shared/constants';
import { canonicalRecord, canonicalScanType } from '../shared/values';
import { deliveryKeyOf } from './deliveryKey';
import { apiRequest, getApiCredentials, getPage, type Page, type Query } from '../shared/transport';

/**
 * Catching up: at each activation and interval the trigger emits the new mail and completions no
 * delivery ran (the service never retries one). Each item is claimed with its delivery's key, so
 * an event runs once whether it came by delivery, by catch-up or both. Each kind keeps a floor and
 * the ids seen above it, so reads stay short and the first activation emits nothing from before
 * it. See docs/webhook-trigger.md, "Across downtime: catching up".
 */
export const catchUpPolicy = {
	pageSize: PAGE_SIZE_MAX,
	/** Pages one kind reads at most in one catch-up, while each page still holds unseen items. */
	maxPages: 10,
	/** The floor trails the newest seen by this: the mailroom logs some mail late. */
	lateWindowMs: 72 * 60 * 60 * 1000,
	/** Ids each kind remembers above its floor; the floor rises past the ones dropped. */
	maxSeen: 1_000,
	/** Activation waits this long for the first catch-up: n8n saves the state when it ends. */
	activationWaitMs: 10_000,
	/** n8n's cron ticks each minute. */
	minIntervalMinutes: 1,
	maxIntervalMinutes: 7 * 24 * 60,
	/** Tests shorten the minute. */
	minuteMs: 60_000,
};

export type CatchUpKind = 'mail' | 'scans';

/** Nothing at or below `floor` (ms) is emitted; `seen`: id → ms of what was seen above it. */
export interface KindState extends IDataObject {
	floor: number | null;
	seen: Record<string, number>;
}

/** The catch-up's state, in the trigger node's static data under `catchUp`. */
export interface CatchUpState extends IDataObject {
	/** Any other value primes; the previous version's string goes on (storedFingerprint). */
	fingerprint?: CatchUpFingerprint;
	/** Digest of the account id GET /v1/account named. */
	accountId?: string;
	mail?: KindState;
	scans?: KindState;
}

export interface CatchUpFingerprint extends IDataObject {
	node: string;
	account: Account;
}

/** Pure: 'key' when only the API key changed: perhaps a rotation, which GET /v1/account tells. */
export function fingerprintChange(
	stored: unknown,
	now: CatchUpFingerprint,
): 'same' | 'key' | 'other' {
	const before = objectOr(stored);
	const account = objectOr(before.account);
	if (
		before.node !== now.node ||
		account.server !== now.account.server ||
		account.credentialId !== now.account.credentialId
	)
		return 'other';
	return account.keyDigest === now.account.keyDigest ? 'same' : 'key';
}

const objectOr = (value: unknown): IDataObject =>
	typeof value === 'object' && value !== null ? (value as IDataObject) : {};

/**
 * Pure: the state's fingerprint as fields. The previous version saved `[node, server, credential]`
 * as a JSON string with the key's digest beside it: read as the same fields, its history goes on.
 */
export function storedFingerprint(state: IDataObject): unknown {
	if (typeof state.fingerprint !== 'string') return state.fingerprint;
	try {
		const [node, server, credentialId] = JSON.parse(state.fingerprint) as unknown[];
		return { node, account: { server, credentialId, keyDigest: state.keyDigest } };
	} catch {
		return undefined;
	}
}

/** Pure: a mail item's arrival, a scan's completion; NaN if unknown. */
export function timeOf(kind: CatchUpKind, record: IDataObject): number {
	return Date.parse(
		String(
			(kind === 'mail' ? record.arrival_date : (record.status_updated_at ?? record.updated_at)) ??
				'',
		),
	);
}

/** Pure: a scan's id goes with its completion time: a restored scan completes again. */
export function seenIdOf(kind: CatchUpKind, record: IDataObject): string {
	return kind === 'mail'
		? String(record.id)
		: `${String(record.id)}@${String(record.status_updated_at ?? record.updated_at ?? '')}`;
}

/**
 * Pure: one page read newest first, against the kind's state. Only mail can reach its floor:
 * the scan list is ordered by creation, not completion.
 */
export function examinePage(
	kind: CatchUpKind,
	records: IDataObject[],
	state: KindState,
): { unseen: IDataObject[]; listed: IDataObject[]; reachedFloor: boolean } {
	const unseen: IDataObject[] = [];
	const listed: IDataObject[] = [];
	let reachedFloor = false;
	for (const record of records) {
		const at = timeOf(kind, record);
		if (Number.isNaN(at)) continue; // undated: no place above or below the floor, never emitted
		if (state.floor !== null && at <= state.floor) {
			if (kind === 'mail') {
				reachedFloor = true;
				break;
			}
			continue;
		}
		listed.push(record);
		if (!(seenIdOf(kind, record) in state.seen)) unseen.push(record);
	}
	return { unseen, listed, reachedFloor };
}

/**
 * Pure: the state after a read. The floor only rises: to the newest less the late window, past
 * what maxSeen drops, and at priming to `lowestRead` (what lies below a read that stopped early
 * was not seen).
 */
export function advance(
	kind: CatchUpKind,
	state: KindState,
	listed: IDataObject[],
	lowestRead?: number,
): KindState {
	const seen: Record<string, number> = { ...state.seen };
	for (const record of listed) seen[seenIdOf(kind, record)] = timeOf(kind, record);
	const newestFirst = Object.entries(seen).sort((a, b) => b[1] - a[1]);
	let floor = state.floor;
	const raise = (to: number | undefined) => {
		if (to !== undefined && !Number.isNaN(to) && (floor === null || to > floor)) floor = to;
	};
	if (newestFirst.length) raise(newestFirst[0][1] - catchUpPolicy.lateWindowMs);
	if (newestFirst.length > catchUpPolicy.maxSeen) raise(newestFirst[catchUpPolicy.maxSeen][1]);
	raise(lowestRead);
	const kept: Record<string, number> = {};
	for (const [id, at] of newestFirst) if (floor === null || at > floor) kept[id] = at;
	return { floor, seen: kept };
}

/** The delivery keys this node's webhook recorded in static data (deliveries.ts). */
export function deliveredOf(staticData: IDataObject): Set<string> {
	const seen = staticData.seen;
	return new Set(seen && typeof seen === 'object' ? Object.keys(seen) : []);
}

/** Pure: a listed record as a delivered item at version 2 would be, marked caught up. */
export function caughtUpItem(kind: CatchUpKind, record: IDataObject): IDataObject {
	if (kind === 'mail')
		return { event: 'new-mail', ...canonicalRecord(record, 'mail'), caught_up: true };
	const { id, mail_id, type, status, ...others } = canonicalRecord(record, 'scan');
	return {
		event: scanTypeOf(record) === 'open' ? 'open-update' : 'scan-update',
		id,
		mail_id,
		type,
		status,
		...others,
		caught_up: true,
	};
}

export function kindsOf(events: string[]): { mail: boolean; scanTypes: string[] } {
	return {
		mail: events.includes('new-mail'),
		scanTypes: [
			...(events.includes('scan-update') ? ['scan'] : []),
			...(events.includes('open-update') ? ['open'] : []),
		],
	};
}

/** A copied node, another server or another credential primes: it never replays this history. */
async function ownState(ctx: ITriggerFunctions, state: CatchUpState): Promise<void> {
	const credentials = await getApiCredentials.call(ctx);
	const node = ctx.getNode();
	const fingerprint: CatchUpFingerprint = {
		node: node.id,
		account: accountOf(node.credentials?.[CREDENTIAL_TYPE]?.id, credentials),
	};
	const change = fingerprintChange(storedFingerprint(state), fingerprint);
	if (change === 'same' && typeof state.fingerprint !== 'string') return;
	// The previous version's form: its key digest moves into the fingerprint.
	delete state.keyDigest;
	if (change === 'same') {
		state.fingerprint = fingerprint;
		return;
	}
	const account = (await apiRequest.call(ctx, 'GET', '/v1/account')) as IDataObject;
	const accountId =
		account?.id === undefined || account?.id === null ? '' : digest(String(account.id));
	// A new API key of the same account goes on (a rotation); anything else starts over.
	if (change === 'other' || accountId !== state.accountId)
		for (const field of Object.keys(state)) delete state[field];
	Object.assign(state, { fingerprint, accountId });
}

/** Reads on while a page held unseen records, up to maxPages; priming reads one page. */
async function readKind(
	ctx: ITriggerFunctions,
	kind: CatchUpKind,
	query: Query,
	state: KindState | undefined,
	stats: CatchUpStats,
): Promise<{ next: KindState; unseen: IDataObject[] }> {
	const path = kind === 'mail' ? '/v1/mails' : '/v1/scans';
	const current: KindState = state ?? { floor: null, seen: {} };
	const unseen: IDataObject[] = [];
	const listed: IDataObject[] = [];
	let cursor: string | undefined;
	let lowestRead: number | undefined;
	for (let pages = 0; pages < catchUpPolicy.maxPages; pages++) {
		const page: Page = await getPage(ctx, path, query, catchUpPolicy.pageSize, cursor);
		stats.requests++;
		const found = examinePage(kind, page.data, current);
		listed.push(...found.listed);
		unseen.push(...found.unseen);
		const times = page.data.map((record) => timeOf(kind, record)).filter((t) => !Number.isNaN(t));
		const more = Boolean(page.next_cursor) && !found.reachedFloor;
		if (!state) {
			// Priming: one page. A mail list that goes on below it is not seen: its floor goes up to it.
			if (kind === 'mail' && more && times.length) lowestRead = Math.min(...times);
			// Scans are listed by creation: a completion not read now may be older than the ones read.
			// The floor sits just below the newest one read: times are in whole seconds, and a
			// completion after this read in the same second must stay above it.
			if (kind === 'scans') lowestRead = Math.max(...times, Number.NEGATIVE_INFINITY) - 1;
			break;
		}
		if (!more || found.unseen.length === 0) break;
		cursor = page.next_cursor ?? undefined;
	}
	const next = advance(
		kind,
		current,
		listed,
		lowestRead === Number.NEGATIVE_INFINITY ? undefined : lowestRead,
	);
	return { next, unseen: state ? unseen : [] };
}

export interface CatchUpStats {
	requests: number;
	primed: CatchUpKind[];
}

/**
 * One catch-up: the items to emit, oldest first, with the state advanced in place. What static
 * data shows as delivered is left out: its claim would end it in an empty execution.
 */
export async function catchUp(
	this: ITriggerFunctions,
	state: CatchUpState,
	events: string[],
	delivered: Set<string>,
): Promise<{ items: IDataObject[]; stats: CatchUpStats }> {
	const stats: CatchUpStats = { requests: 0, primed: [] };
	await ownState(this, state);
	const { mail, scanTypes } = kindsOf(events);
	const found: Array<{ kind: CatchUpKind; record: IDataObject }> = [];
	const read = async (kind: CatchUpKind, query: Query) => {
		const before = state[kind];
		if (!before) stats.primed.push(kind);
		const { next, unseen } = await readKind(this, kind, query, before, stats);
		state[kind] = next;
		for (const record of unseen) found.push({ kind, record });
	};
	if (mail) await read('mail', { sort: 'newest' });
	if (scanTypes.length)
		await read('scans', { status: ['completed'], type: scanTypes, sort: 'newest' });
	const items = found
		.filter(({ kind, record }) => kind === 'mail' || scanTypes.includes(scanTypeOf(record)))
		.sort((a, b) => timeOf(a.kind, a.record) - timeOf(b.kind, b.record))
		.map(({ kind, record }) => caughtUpItem(kind, record))
		.filter((item) => !delivered.has(deliveryKeyOf(item, 2) ?? ''));
	return { items, stats };
}

const scanTypeOf = (record: IDataObject) =>
	canonicalScanType(record.type) === 'UNBOXING_REQUEST' ? 'open' : 'scan';

export interface CatchUpOptions {
	catchUp?: boolean;
	catchUpIntervalMinutes?: number;
	duplicateWindowMinutes?: number;
}

/**
 * n8n's own cron, so that n8n stops it with the workflow and runs it on the leader only; at a
 * second the node picks, to spread triggers out. Older 1.x takes a plain expression, not
 * { expression }. False when this n8n offers no cron.
 */
function registerEveryMinute(ctx: ITriggerFunctions, onTick: () => void): boolean {
	const second = parseInt(digest(`${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`), 16) % 60;
	const expression = `${second} * * * * *`;
	const register = ctx.helpers.registerCron as unknown as (cron: unknown, tick: () => void) => void;
	if (typeof register !== 'function') return false;
	try {
		register({ expression }, onTick);
		return true;
	} catch {
		try {
			register(expression, onTick);
			return true;
		} catch {
			return false;
		}
	}
}

/**
 * The trigger's trigger(): a catch-up at activation, then one each interval, one at a time. A
 * catch-up that fails changes no state; the next reads the same again. Off in manual mode (no
 * state kept), before version 2 (items are the delivery as sent) and with a Duplicate Window of 0
 * (no claim then tells a caught-up event from its delivery).
 */
export async function startCatchingUp(
	this: ITriggerFunctions,
): Promise<{ closeFunction?: () => Promise<void> }> {
	const options = this.getNodeParameter('options', {}) as CatchUpOptions;
	if (
		this.getMode() === 'manual' ||
		this.getNode().typeVersion < 2 ||
		options.catchUp === false ||
		options.duplicateWindowMinutes === 0
	)
		return {};
	const events = this.getNodeParameter('events', []) as string[];
	const { mail, scanTypes } = kindsOf(events);
	if (!mail && scanTypes.length === 0) return {};
	const intervalMinutes = options.catchUpIntervalMinutes ?? 60;
	if (typeof intervalMinutes !== 'number' || !(intervalMinutes >= 0))
		throw new NodeOperationError(
			this.getNode(),
			'Catch-Up Interval (Minutes) must be a number of at least ' +
				`0 (0: only at activation), got "${String(intervalMinutes)}"`,
		);
	const staticData = this.getWorkflowStaticData('node');
	let closed = false;
	let running: Promise<void> | undefined;
	const once = async () => {
		const state = (staticData.catchUp ?? {}) as CatchUpState;
		// Worked on a copy: a catch-up that fails leaves the saved state as it was.
		const draft = JSON.parse(JSON.stringify(state)) as CatchUpState;
		try {
			const { items, stats } = await catchUp.call(this, draft, events, deliveredOf(staticData));
			if (closed) return;
			staticData.catchUp = draft;
			this.logger.debug(
				`Virtual Mailbox Trigger caught up: ${items.length} event(s), ${stats.requests} ` +
					`request(s)${stats.primed.length ? `, primed ${stats.primed.join(', ')}` : ''}`,
			);
			if (items.length) this.emit([items.map((json) => ({ json }))]);
		} catch (error) {
			if (closed) return;
			this.logger.warn(
				'Virtual Mailbox Trigger could not catch up (the next activation ' +
					`or interval reads the same again): ${(error as Error).message}`,
			);
			// Older 1.x throws "not available": the log line above is all it keeps.
			try {
				this.saveFailedExecution(
					error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(this.getNode(), error as Error),
				);
			} catch {
				// logged above
			}
		}
	};
	let lastStarted = Date.now();
	const run = async () => {
		if (running) return await running;
		lastStarted = Date.now();
		running = once().finally(() => (running = undefined));
		return await running;
	};
	await Promise.race([run(), sleep(catchUpPolicy.activationWaitMs)]);
	if (intervalMinutes > 0) {
		const everyMs =
			Math.min(
				Math.max(catchUpPolicy.minIntervalMinutes, intervalMinutes),
				catchUpPolicy.maxIntervalMinutes,
			) * catchUpPolicy.minuteMs;
		// Half a tick of slack: a tick a little early (timer drift) still counts.
		const onTick = () => {
			if (!closed && !running && Date.now() - lastStarted >= everyMs - catchUpPolicy.minuteMs / 2)
				void run();
		};
		if (!registerEveryMinute(this, onTick))
			this.logger.warn(
				'Virtual Mailbox Trigger: this n8n offers no cron to a trigger, so ' +
					'it catches up at each activation only (not at the Catch-Up Interval)',
			);
	}
	return {
		// n8n removes the cron with the trigger; a tick already under way does nothing once closed.
		closeFunction: async () => {
			closed = true;
		},
	};
}
