import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { type Account, accountOf, digest } from '../shared/account';
import { CREDENTIAL_TYPE, PAGE_SIZE_MAX } from '../shared/constants';
import { canonicalRecord, canonicalScanType } from '../shared/values';
import { deliveryKeyOf } from './deliveryKey';
import { apiRequest, getApiCredentials, getPage, type Page, type Query } from '../shared/transport';

/**
 * Catching up: at each activation and interval the trigger reads the new mail and the scan or
 * open completions that no delivery ran (the service never retries one) and emits them. Each item
 * is claimed with the same key as its delivery (deliveryKey.ts, claims.ts), so an event runs once
 * whether it came by delivery, by catch-up or both. Each kind keeps a floor and the ids above it
 * it has seen, so reads stay short and the first activation emits nothing from before it. See
 * docs/webhook-trigger.md, "Across downtime".
 */
export const catchUpPolicy = {
	/** Items per list request (the API's maximum). */
	pageSize: PAGE_SIZE_MAX,
	/** Pages one kind reads at most in one catch-up, while each page still holds unseen items. */
	maxPages: 10,
	/** Items older than this below the newest seen are below the floor (mail logged late by the mailroom). */
	lateWindowMs: 72 * 60 * 60 * 1000,
	/** Ids each kind remembers above its floor; the floor rises past the ones dropped. */
	maxSeen: 1_000,
	/** How long activation waits for the first catch-up (n8n saves the state once activation ends). */
	activationWaitMs: 10_000,
	/** The shortest interval between catch-ups while the workflow is active (n8n's cron ticks each minute). */
	minIntervalMinutes: 1,
	/** The longest: a week. */
	maxIntervalMinutes: 7 * 24 * 60,
	/** A minute, in ms (the model and unit tests shorten it). */
	minuteMs: 60_000,
};

export type CatchUpKind = 'mail' | 'scans';

/** One kind's part of the state: nothing at or below `floor` (ms) is emitted; `seen`: id → ms above it. */
export interface KindState extends IDataObject {
	floor: number | null;
	seen: Record<string, number>;
}

/** The catch-up's state, in the trigger node's static data under `catchUp`. */
export interface CatchUpState extends IDataObject {
	/** What the state belongs to; any other value, an older form's included, primes. */
	fingerprint?: CatchUpFingerprint;
	/** Digest of the account id GET /v1/account named. */
	accountId?: string;
	mail?: KindState;
	scans?: KindState;
}

/** The node and the account its credential reaches. */
export interface CatchUpFingerprint extends IDataObject {
	node: string;
	account: Account;
}

/**
 * Pure: how the stored fingerprint differs. 'key': only the API key changed, perhaps a rotation
 * of the same account, which GET /v1/account tells; 'other': another node, server or credential.
 */
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

/** Pure: when a listed record happened: a mail item's arrival, a scan's completion. NaN if unknown. */
export function timeOf(kind: CatchUpKind, record: IDataObject): number {
	return Date.parse(
		String(
			(kind === 'mail' ? record.arrival_date : (record.status_updated_at ?? record.updated_at)) ??
				'',
		),
	);
}

/** Pure: the id a kind remembers: the mail id; for a scan its id and completion (a restored scan completes again). */
export function seenIdOf(kind: CatchUpKind, record: IDataObject): string {
	return kind === 'mail'
		? String(record.id)
		: `${String(record.id)}@${String(record.status_updated_at ?? record.updated_at ?? '')}`;
}

/**
 * Pure: one page of a kind read newest first, against its state: `unseen` the records above the
 * floor not seen before, `listed` the dated ones above the floor, `reachedFloor` whether the page
 * went down to the floor (mail only: the scan list is ordered by creation, not completion).
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
 * Pure: the state after a read: `listed` seen, the floor raised to the newest less the late
 * window and past what the cap drops (never lowered), the ids at or below it forgotten.
 * `lowestRead`: at priming, the oldest record a read that stopped early reached (what lies below
 * it was not seen, so it goes below the floor).
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

/** The delivery keys this node's webhook recorded in the same static data (deliveries.ts), as of the last save. */
export function deliveredOf(staticData: IDataObject): Set<string> {
	const seen = staticData.seen;
	return new Set(seen && typeof seen === 'object' ? Object.keys(seen) : []);
}

/**
 * Pure: a listed record as the trigger's item at version 2 (restShape.ts's REST shape), marked as
 * caught up: its enums in the canonical form every node outputs (shared/values.ts), a scan's
 * id, mail id, type and status first, as a delivered scan update's.
 */
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

/** What one catch-up reads: the kinds the selected events cover, and the scan types. */
export function kindsOf(events: string[]): { mail: boolean; scanTypes: string[] } {
	return {
		mail: events.includes('new-mail'),
		scanTypes: [
			...(events.includes('scan-update') ? ['scan'] : []),
			...(events.includes('open-update') ? ['open'] : []),
		],
	};
}

/**
 * The state's owner: the node, the server and the credential. Another one starts over (primes):
 * a copied node, another server or another credential never replays the first one's history.
 */
async function ownState(ctx: ITriggerFunctions, state: CatchUpState): Promise<void> {
	const credentials = await getApiCredentials.call(ctx);
	const node = ctx.getNode();
	const fingerprint: CatchUpFingerprint = {
		node: node.id,
		account: accountOf(node.credentials?.[CREDENTIAL_TYPE]?.id, credentials),
	};
	const change = fingerprintChange(state.fingerprint, fingerprint);
	if (change === 'same') return;
	const account = (await apiRequest.call(ctx, 'GET', '/v1/account')) as IDataObject;
	const accountId =
		account?.id === undefined || account?.id === null ? '' : digest(String(account.id));
	// A new API key of the same account goes on (a rotation); anything else starts over.
	if (change === 'other' || accountId !== state.accountId)
		for (const field of Object.keys(state)) delete state[field];
	Object.assign(state, { fingerprint, accountId });
}

/**
 * One kind's read: the first page always; the next while the page held unseen records, the list
 * goes on and (mail) the floor is not reached, up to maxPages. Priming reads one page.
 */
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
			// The floor sits just below the newest one read: a completion after this read in the same
			// second (times in whole seconds, as the simulator gives them) is above it, the ones read are seen.
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

/** Requests and what they found, for the log line and the tests. */
export interface CatchUpStats {
	requests: number;
	primed: CatchUpKind[];
}

/**
 * One catch-up: reads each selected kind and returns the items to emit, oldest first, the state
 * advanced in place. A kind without state primes (records where it stands, emits nothing). What
 * the webhook's static data shows as delivered is left out (the claim would drop it anyway).
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

/** The catch-up's options (the trigger's Options collection). */
export interface CatchUpOptions {
	catchUp?: boolean;
	catchUpIntervalMinutes?: number;
	duplicateWindowMinutes?: number;
}

/**
 * The interval's timer: n8n's own cron (registerCron, as the Schedule Trigger uses), every minute
 * at a second the node's id picks, so that n8n stops it when it deactivates the workflow and runs
 * it only on the leader. Its form changed in n8n 1.x ({ expression } since about 1.9x, a plain
 * expression before): the older form is tried when the newer one is refused. Returns false when
 * this n8n has neither (then only activation catches up).
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
 * The trigger's trigger(): a catch-up at activation (activation waits for it up to
 * activationWaitMs, so that n8n saves its state when activation ends), then one every interval
 * while active (registerEveryMinute's tick counts the minutes). One runs at a time. A catch-up
 * that fails changes no state and is reported as a failed execution (saveFailedExecution) and in
 * the log; the next one reads the same again. Returns the close function. Nothing runs in manual
 * mode (no state is kept for test runs), at node versions before 2 (their items are the delivery
 * as sent), with Catch Up off, or with a Duplicate Window of 0 (no claim then tells a caught-up
 * event from its delivery).
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
			`Catch-Up Interval (Minutes) must be a number of at least 0 (0: only at activation), got "${String(intervalMinutes)}"`,
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
				`Virtual Mailbox Trigger caught up: ${items.length} event(s), ${stats.requests} request(s)${stats.primed.length ? `, primed ${stats.primed.join(', ')}` : ''}`,
			);
			if (items.length) this.emit([items.map((json) => ({ json }))]);
		} catch (error) {
			if (closed) return;
			this.logger.warn(
				`Virtual Mailbox Trigger could not catch up (the next activation or interval reads the same again): ${(error as Error).message}`,
			);
			// Shown in the executions list; an n8n whose trigger context has none (older 1.x throws
			// "not available") keeps the log line above only.
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
				'Virtual Mailbox Trigger: this n8n offers no cron to a trigger, so it catches up at each activation only (not at the Catch-Up Interval)',
			);
	}
	return {
		// n8n removes the cron with the trigger; a tick already under way does nothing once closed.
		closeFunction: async () => {
			closed = true;
		},
	};
}
