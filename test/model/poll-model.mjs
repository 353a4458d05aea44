// The Poll Trigger's model checker: a seeded, randomized history of a mailbox and of n8n running
// one Poll Trigger, played against the simulator through n8n-core's PollContext, with an oracle
// that knows the mailbox's true history and checks the trigger's guarantee (docs/poll-trigger.md)
// after every step. The limits are the contract's numbers, written here as a spec (not
// imported from the nodes), so that the checker also runs against older builds
// (VMB_PACKAGE_DIR=<a folder with package.json and dist/>, see the harness).
//
// n8n's persistence, as n8n 2.41 does it (active-workflow-manager `add`, trigger-execution-context
// factory `__emit`): the active workflow keeps one static data object in memory for all its polls
// (also what a failed poll changed); it is written to the database when a poll emits and after an
// activation, which runs one poll itself and fails as a whole if that poll fails. A restart, and an
// edit of an active workflow, load the last save and activate again.
import { startSimulator } from '../simulator/server.mjs';
import { fail } from '../simulator/problems.mjs';
import { MAIL_STATUSES, MAIL_TYPES, SCAN_FILTERS } from '../simulator/mail-query.mjs';
import { iso } from '../simulator/mailbox.mjs';
import { scanKindFor } from '../simulator/data.mjs';
import { DEFAULT_CREDENTIALS, dist, runPoll } from '../harness/n8n-core-harness.mjs';

// ---- the contract's numbers (spec) ----
export const LATE_WINDOW_MS = 72 * 3_600_000;
export const MAX_REMEMBERED = 1_000;
export const MAX_EMIT_PER_POLL = 1_000;
export const DEPTH_LIMIT = 10_000;
/** Arrival dates are whole seconds: an item this close to a date floor counts as on it (either way is fair). */
const EDGE_MS = 2_000;

// ---- randomness ----
export function rng(seed) {
	let a = seed >>> 0 || 1;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}
const pick = (r, list) => list[Math.floor(r() * list.length)];
const weighted = (r, table) => {
	let x = r() * table.reduce((sum, [, w]) => sum + w, 0);
	for (const [value, w] of table) if ((x -= w) < 0) return value;
	return table.at(-1)[0];
};
const subset = (r, list) => {
	const out = list.filter(() => r() < 0.4);
	return out.length ? out : [pick(r, list)];
};

// ---- the generator: a list of steps, each self-contained data (indexes taken modulo what exists
// when it runs), so that any sub-list is a valid history too (the shrinker drops steps) ----
const STATUS_MIX = [
	['inbox', 70],
	['archived', 12],
	['quarantine', 8],
	['discard_request', 10],
];
const TYPE_MIX = MAIL_TYPES.map((t) => [t, t === 'letter' ? 8 : t === 'package' ? 4 : 1]);
const ACTIONS = ['archive', 'unarchive', 'discard', 'undiscard', 'read', 'file', 'delete'];
const SCAN_MOVES = [
	['request', 5],
	['complete', 5],
	['cancel', 1],
	['delete', 2],
	['restore', 2],
];

function randomConfig(r) {
	const event = weighted(r, [
		['new-mail', 70],
		['scan-completed', 20],
		['open-completed', 10],
	]);
	if (event !== 'new-mail') return { event, filters: {} };
	const filters = {};
	if (r() < 0.4) filters.status = subset(r, MAIL_STATUSES);
	if (r() < 0.3) filters.mailType = subset(r, MAIL_TYPES);
	if (r() < 0.2) filters.scanStatus = subset(r, SCAN_FILTERS);
	return { event, filters };
}
const configKey = (c) =>
	JSON.stringify([
		c.event,
		...['status', 'mailType', 'scanStatus'].map((k) => [...(c.filters[k] ?? [])].sort()),
	]);

function mutation(r) {
	const kind = weighted(r, [
		['arrive', 4],
		['late', 2],
		['act', 5],
		['scan', 3],
	]);
	return {
		kind,
		n: 1,
		status: weighted(r, STATUS_MIX),
		type: weighted(r, TYPE_MIX),
		hours: r() * 100,
		action: pick(r, ACTIONS),
		move: weighted(r, SCAN_MOVES),
		open: r() < 0.3,
		x: r(),
	};
}

/** `huge: false` leaves out bursts past the API's depth (for the reference reading, which does not divide reads). */
export function generate(seed, steps, { huge = true } = {}) {
	const r = rng(seed);
	const config = randomConfig(r);
	r(); // (a draw kept so that every seed's history stays as it was)
	// Odd seeds keyset cursors, even seeds offset cursors (that count positions): CI runs both.
	// Scan statuses the spec does not list (`unlisted`, the statuses below) are played in every
	// generated history: a scan may show PENDING or another unknown status before it completes.
	const history = [
		{ kind: 'activate', config, cursorMode: seed % 2 ? 'keyset' : 'offset', unlisted: true },
	];
	for (let n = 0; n < steps; n++) {
		const kind = weighted(r, [
			['arrive', 20],
			['burst', 1.2],
			['huge', huge ? 0.06 : 0],
			['late', 5],
			['act', 10],
			['scan', 10],
			['poll', 30],
			['edit', 0.8],
			['restart', 1.2],
			['manual', 0.5],
		]);
		const step = { kind, ...mutation(r) };
		step.kind = kind;
		if (kind === 'arrive') step.n = r() < 0.85 ? 1 : 2 + Math.floor(r() * 30);
		if (kind === 'burst') step.n = MAX_EMIT_PER_POLL + 1 + Math.floor(r() * 1_500);
		if (kind === 'huge') step.n = DEPTH_LIMIT + 1 + Math.floor(r() * 1_500);
		if (kind === 'burst' || kind === 'huge') step.seed = Math.floor(r() * 2 ** 31);
		// The backlog read at once while the workflow moves the newest mail (aimed at the oldest new item).
		if (kind === 'burst' && r() < 0.4) step.sweepPoll = true;
		if (kind === 'act') step.target = r() < 0.6 ? 'emitted' : 'any';
		if (kind === 'edit') step.config = randomConfig(r);
		if (kind === 'poll') {
			step.variant = weighted(r, [
				['plain', 60],
				['fault', 12],
				['during', 15],
				['overlap', 6],
			]);
			step.at =
				1 +
				Math.floor(
					r() *
						weighted(r, [
							[2, 6],
							[12, 3],
							[30, 1],
						]),
				); // the request it happens at
			step.faultStatus = r() < 0.7 ? 503 : 400;
			step.during = mutation(r);
			step.during.target = weighted(r, [
				['top', 4],
				['emitted', 3],
				['any', 3],
			]); // top: among the newest mail, above a reading cursor
			// A sweep removes the newest n items (the workflow archiving a batch) at the request that
			// reads the last page of the query above the floor: what a cursor counting positions skips.
			if (r() < 0.3)
				Object.assign(step.during, {
					kind: 'sweep',
					n: 1 + Math.floor(r() * 100),
					action: pick(r, ['delete', 'archive', 'discard']),
				});
			step.atLast = r() < 0.2;
			// Or aimed at the oldest new item: at the request reading its page, the sweep removes
			// enough of the newest items of the query for a cursor counting positions to skip it.
			step.atOldest = !step.atLast && r() < 0.5;
			step.react = r() < 0.5 ? { action: pick(r, ACTIONS), share: r() } : undefined; // the workflow acting on what it received
		}
		history.push(step);
	}
	return history;
}

// ---- the oracle's view of order keys ----
const keyOf = (m) => [Date.parse(m.arrival_date), Number(m.id)];
const cmp = (a, b) => a[0] - b[0] || a[1] - b[1];
const above = (key, floor) => !floor || cmp(key, floor) > 0;
const showKey = (k) => (k ? `${iso(k[0])}#${k[1] === -Infinity ? '-' : k[1]}` : 'none');

function matches(m, filters) {
	return (
		(!filters.status || filters.status.includes(m.mail_status)) &&
		(!filters.mailType || filters.mailType.includes(m.mail_type)) &&
		(!filters.scanStatus ||
			filters.scanStatus.includes(m.scan ? m.scan.status.toLowerCase() : 'none'))
	);
}
const SCAN_TYPE = { 'scan-completed': 'SCAN_REQUEST', 'open-completed': 'UNBOXING_REQUEST' };
/** Scan statuses after which a scan moves no more unless restored; any other status (also one the spec does not list) is not finished yet. */
const FINISHED = new Set(['COMPLETED', 'CANCELLED', 'REJECTED', 'DELETED']);
const isUnfinished = (status) => !FINISHED.has(String(status).toUpperCase());
/**
 * Statuses the spec does not list (its transitions are "not shown", it speaks of a "pending
 * scan"), or lists in another case: what a real service may show a scan in before it completes.
 */
export const UNLISTED_SCAN_STATUSES = [
	'PENDING',
	'pending',
	'Queued',
	'AWAITING_SCAN',
	'in_process',
];
const unlistedStatus = (step) =>
	UNLISTED_SCAN_STATUSES[Math.floor(step.hours * 7) % UNLISTED_SCAN_STATUSES.length];

export class Violation extends Error {
	constructor(property, detail, step) {
		super(`${property} at step ${step}: ${detail}`);
		Object.assign(this, { property, detail, step });
	}
}

/** Plays one history against the simulator; throws a Violation at the first broken property. */
export class ModelRun {
	constructor(sim, { credentials, log = () => {}, collect, pollFn = runPoll }) {
		this.sim = sim;
		/** How a poll runs: the built node through n8n-core (runPoll), or reference-trigger.mjs. */
		this.pollFn = pollFn;
		/** With `collect`, broken properties are gathered (the first of each) and the run goes on. */
		this.collect = collect;
		this.found = new Map();
		this.credentials = credentials;
		this.log = log;
		this.stats = { polls: 0, emitted: 0, failedPolls: 0, requests: 0, maxMails: 0 };
	}

	get db() {
		return this.sim.db;
	}

	async play(history, { seed }) {
		this.sim.reset({ count: 300, seed, cursorMode: history[0].cursorMode });
		this.unlisted = history[0].unlisted === true;
		this.sim.settings.unlistedValues = this.unlisted;
		this.sim.settings.onRequest = (record) => this.onRequest(record);
		this.sim.requests.length = 0;
		// The seeded mailbox moves 60 days back; the model's clock runs on from there, a second or more per change.
		const shift = 60 * 86_400_000;
		const back = (value) => (value ? iso(Date.parse(value) - shift) : value);
		for (const m of this.db.mails) m.arrival_date = back(m.arrival_date);
		for (const s of this.db.scans)
			for (const f of ['created_at', 'updated_at', 'status_updated_at']) s[f] = back(s[f]);
		this.sim.changed();
		this.clock = Math.floor(Date.now() / 1_000) * 1_000 - shift + 3_600_000;
		this.seq = 1;
		this.logged = new Map(); // mail id → seq it was logged at (absent: seeded, before any activation)
		this.scanLog = new Map(); // scan id → { created, versions: [{ status, at, seq }] }
		for (const s of this.db.scans)
			this.scanLog.set(s.id, {
				created: 0,
				versions: [{ status: s.status, at: Date.parse(s.status_updated_at), seq: 0 }],
			});
		this.emittedToWorkflow = [];
		this.workflowId = `wf-model-${seed}`;
		this.live = {};
		this.saved = '{}';
		this.epoch = undefined;
		for (let n = 0; n < history.length; n++) {
			this.stepIndex = n;
			await this.step(history[n]);
			this.stats.maxMails = Math.max(this.stats.maxMails, this.db.mails.length);
		}
		this.endEpoch();
		this.stats.requests = this.sim.requests.length;
		return this.stats;
	}

	violation(property, detail) {
		const violation = new Violation(property, detail, this.stepIndex);
		if (!this.collect) throw violation;
		if (!this.found.has(property)) this.found.set(property, violation);
	}

	tick(ms = 1_000) {
		this.clock += Math.max(1_000, Math.round(ms / 1_000) * 1_000);
		this.seq++;
		if (this.polling) this.changedDuringPoll = true;
	}

	// ---- the mailroom and the workflow ----
	arrive({ status = 'inbox', type = 'letter', arrival, read = false }) {
		const mail = this.sim.mailbox.addMail({
			mail_status: status,
			mail_type: type,
			arrival_date: iso(arrival ?? this.clock),
			sender_name: 'Model',
		});
		mail.is_read = read;
		this.logged.set(mail.id, this.seq);
		return mail;
	}

	mutate(step) {
		const r = rng(Math.floor(step.x * 2 ** 31) + 1);
		switch (step.kind) {
			case 'arrive':
				this.tick(r() * 120_000);
				for (let n = 0; n < step.n; n++) {
					const mail = this.arrive({
						status: n === 0 ? step.status : weighted(r, STATUS_MIX),
						type: n === 0 ? step.type : weighted(r, TYPE_MIX),
					});
					// About 3 % of arrivals log their first item without an arrival date (nullable in the API).
					if (n === 0 && step.hours < 3) {
						mail.arrival_date = null;
						this.sim.changed();
					}
				}
				return `${step.n} arrive (${step.status} ${step.type}${step.hours < 3 ? ', the first without arrival date' : ''}…)`;
			case 'burst':
			case 'huge': {
				this.tick(60_000);
				const rb = rng(step.seed);
				for (let n = 0; n < step.n; n++)
					this.arrive({
						status: weighted(rb, STATUS_MIX),
						type: weighted(rb, TYPE_MIX),
						read: rb() < 0.2,
					});
				return `${step.kind} of ${step.n} arrive`;
			}
			case 'late': {
				this.tick(r() * 60_000);
				const mail = this.arrive({
					status: step.status,
					type: step.type,
					arrival: this.clock - Math.round(step.hours * 3_600) * 1_000,
				});
				return `mail ${mail.id} logged late, arrived ${step.hours.toFixed(1)} h ago (${step.status} ${step.type})`;
			}
			case 'act': {
				const pool =
					step.target === 'emitted' && this.emittedToWorkflow.length
						? this.emittedToWorkflow
						: step.target === 'top'
							? this.db.mails.slice(0, 50)
							: this.db.mails;
				const id =
					pool[Math.floor(step.x * pool.length)]?.id ?? pool[Math.floor(step.x * pool.length)];
				return id ? this.act(String(id), step.action) : 'act: nothing';
			}
			case 'scan':
				return this.scanMove(step, r);
			case 'sweep': {
				// The list is kept newest logged first; only late mail is out of order there.
				const newest =
					step.ids ??
					this.db.mails
						.slice(0, step.n + 50)
						.sort((a, b) => cmp(keyOf(b), keyOf(a)))
						.slice(0, step.n)
						.map((m) => m.id);
				return `sweep: ${newest.map((id) => this.act(id, step.action)).filter((line) => !line.includes(':')).length} of the ${newest.length} newest ${step.action}d`;
			}
			default:
				throw new Error(`not a mutation: ${step.kind}`);
		}
	}

	act(id, action) {
		const index = this.db.mails.findIndex((m) => m.id === id);
		if (index < 0) return `${action} ${id}: gone`;
		const mail = this.db.mails[index];
		const from = {
			archive: ['inbox'],
			unarchive: ['archived'],
			discard: ['inbox', 'archived'],
			undiscard: ['discard_request'],
		}[action];
		if (from && !from.includes(mail.mail_status)) return `${action} ${id}: is ${mail.mail_status}`;
		this.tick();
		if (action === 'delete') this.db.mails.splice(index, 1);
		else if (action === 'read') mail.is_read = true;
		else if (action === 'file') mail.folder_id = this.db.folders[0].id;
		else
			mail.mail_status = {
				archive: 'archived',
				unarchive: 'inbox',
				discard: 'discard_request',
				undiscard: 'inbox',
			}[action];
		this.sim.changed();
		return `${action} ${id}`;
	}

	scanMove(step, r) {
		const setStatus = (scan, status) => {
			this.tick(r() * 60_000);
			scan.status = status;
			scan.updated_at = scan.status_updated_at = iso(this.clock);
			this.sim.mailbox.syncScanRef(scan);
			this.sim.changed();
			this.scanLog.get(scan.id).versions.push({ status, at: this.clock, seq: this.seq });
			return `scan ${scan.id.slice(0, 8)} (${scan.type === 'SCAN_REQUEST' ? 'scan' : 'open'}) → ${status}`;
		};
		const choose = (statuses) => {
			const list = this.db.scans.filter((s) => statuses.includes(s.status));
			return list.length ? list[Math.floor(step.x * list.length)] : undefined;
		};
		if (step.move === 'request') {
			// Letters take a scan, the other types an open-and-scan (SDK): the mail is one of the requested kind's.
			const fits = this.db.mails.filter((m) => (scanKindFor(m.mail_type) === 'open') === step.open);
			const mail = fits[Math.floor(step.x * fits.length)];
			if (!mail || (mail.scan && isUnfinished(mail.scan.status))) return 'request: nothing';
			this.tick(r() * 60_000);
			const scan = this.sim.mailbox.createScan(
				mail,
				step.open ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST',
			);
			scan.created_at = scan.updated_at = scan.status_updated_at = iso(this.clock);
			// A quarter of the requests start in a status the spec does not list (no new draw: the
			// step's own `hours` decides, so every seed's history keeps its steps).
			if (this.unlisted && step.hours < 25) {
				scan.status = unlistedStatus(step);
				this.sim.mailbox.syncScanRef(scan);
				this.sim.changed();
			}
			this.scanLog.set(scan.id, {
				created: this.seq,
				versions: [{ status: scan.status, at: this.clock, seq: this.seq }],
			});
			return `scan ${scan.id.slice(0, 8)} (${step.open ? 'open' : 'scan'}) requested for mail ${mail.id} (${scan.status})`;
		}
		const scan = choose(
			{
				complete: ['IN_PROCESS', 'RESTORING', ...UNLISTED_SCAN_STATUSES],
				cancel: ['IN_PROCESS'],
				delete: ['COMPLETED'],
				restore: ['DELETED'],
			}[step.move],
		);
		if (!scan) return `${step.move}: nothing`;
		// Half the cancels of a scan in process move it to an unlisted status instead (it completes later).
		if (this.unlisted && step.move === 'cancel' && step.hours < 50)
			return setStatus(scan, unlistedStatus(step));
		return setStatus(
			scan,
			{ complete: 'COMPLETED', cancel: 'CANCELLED', delete: 'DELETED', restore: 'RESTORING' }[
				step.move
			],
		);
	}

	// ---- n8n ----
	async step(step) {
		switch (step.kind) {
			case 'activate':
				this.config = step.config;
				this.log(`activate ${configKey(step.config)} (${step.cursorMode} cursors)`);
				return await this.activate(true);
			case 'edit': {
				if (configKey(step.config) === configKey(this.config)) return;
				this.config = step.config;
				this.log(`edit → ${configKey(step.config)}`);
				return await this.activate(true);
			}
			case 'restart':
				this.log('restart (from the last save)');
				return await this.activate(false);
			case 'manual':
				return await this.manual();
			case 'poll':
				return await this.poll(step);
			default:
				this.log(this.mutate(step));
				if (step.sweepPoll)
					await this.poll({
						kind: 'poll',
						variant: 'during',
						atOldest: true,
						at: 1,
						during: {
							kind: 'act',
							action: step.action === 'archive' ? 'archive' : 'delete',
							x: step.x,
						},
					});
		}
	}

	parameters() {
		return { event: this.config.event, filters: this.config.filters, options: {} };
	}

	/** n8n activates (first time, after an edit, after a restart): last save → one poll → save. */
	async activate(edited) {
		if (edited) this.endEpoch();
		for (let attempt = 1; ; attempt++) {
			this.live = JSON.parse(this.saved);
			const outcome = await this.poll(
				{ kind: 'poll', variant: 'plain' },
				{ priming: edited && attempt === 1, activation: true },
			);
			if (!outcome.error) break;
			if (attempt === 3)
				this.violation(
					'activation',
					`the activation poll failed three times without a fault: ${outcome.error.message}`,
				);
		}
		this.save();
	}

	save() {
		const { __dataChanged, ...data } = JSON.parse(JSON.stringify(this.live));
		this.saved = JSON.stringify(data);
	}

	async manual() {
		const copy = JSON.parse(JSON.stringify(this.live));
		const before = JSON.stringify(copy);
		try {
			await this.pollFn({
				parameters: this.parameters(),
				credentials: this.credentials,
				staticData: copy,
				mode: 'manual',
				workflowId: this.workflowId,
			});
		} catch {
			// a manual run may fail; it must still leave the state alone
		}
		const { __dataChanged, ...after } = copy;
		if (JSON.stringify(after) !== before)
			this.violation('manual-run', 'a manual test run changed the static data');
		this.log('manual test run');
	}

	async onRequest(record) {
		try {
			await this.currentHook?.(record);
		} catch (error) {
			// A broken property found while the simulator answers: kept for the poll to throw.
			if (error instanceof Violation) this.hookViolation ??= error;
			throw error;
		}
	}

	/** One scheduled poll (or an activation's), checked by the oracle. */
	async poll(step, { priming = false, activation = false } = {}) {
		if (priming) this.startEpoch();
		const ep = this.epoch;
		const start = this.observe(ep);
		let at = step.atLast && start.aboveFloor ? Math.ceil(start.aboveFloor / 100) : step.at;
		if (step.variant === 'during' && step.atOldest && ep.event === 'new-mail') {
			const listed = this.db.mails
				.filter((m) => start.inQ.has(m.id))
				.sort((a, b) => cmp(keyOf(b), keyOf(a)));
			const position = listed.findLastIndex(
				(m) => !ep.emitted.has(m.id) && (this.logged.get(m.id) ?? 0) > ep.primingSeq,
			);
			if (position >= 0) {
				at = Math.floor(position / 100) + 1;
				step = {
					...step,
					during: {
						kind: 'sweep',
						ids: listed.slice(0, (position % 100) + 1).map((m) => m.id),
						action: step.during.action === 'archive' ? 'archive' : 'delete',
						x: step.during.x,
					},
				};
			}
		}
		this.changedDuringPoll = false;
		let requests = 0;
		let faulted = false;
		let overlap;
		this.currentHook = async () => {
			requests++;
			if (step.variant === 'fault' && requests >= at) {
				faulted = true;
				throw fail(step.faultStatus, 'Injected fault');
			}
			if (step.variant === 'during' && requests === at) {
				this.polling = true;
				this.log(`  during the poll's request ${requests}: ${this.mutate(step.during)}`);
				this.polling = false;
				this.changedDuringPoll = true;
			}
			if (step.variant === 'overlap' && requests === at && !overlap) {
				// The next tick's poll starts while this one waits for its answer, and runs to its end.
				const liveBefore = JSON.stringify(this.live);
				const savedHook = this.currentHook;
				this.currentHook = undefined;
				overlap = await this.runOne();
				this.currentHook = savedHook;
				this.log(
					`  overlapping poll: ${overlap.error ? `failed: ${overlap.error.message}` : `emitted ${overlap.items.length}`}`,
				);
				this.record(ep, overlap, { overlapped: true });
				if (overlap.items.length) this.save();
				if (overlap.items.length || JSON.stringify(this.live) !== liveBefore)
					this.violation(
						'one-poll-in-flight',
						`a poll started while another ran ${overlap.items.length ? `emitted ${overlap.items.length} items` : 'changed the state'}`,
					);
			}
		};
		const outcome = await this.runOne();
		this.currentHook = undefined;
		if (this.hookViolation) throw this.hookViolation;
		this.stats.polls++;
		if (outcome.error) this.stats.failedPolls++;
		const label = activation
			? priming
				? 'activation poll (priming)'
				: 'activation poll'
			: `poll${step.variant === 'plain' ? '' : ` (${step.variant}${step.variant === 'plain' ? '' : ` at request ${at}`})`}`;
		this.log(
			`${label}: ${requests} requests, ${outcome.error ? `failed: ${outcome.error.message.slice(0, 160)}` : `emitted ${outcome.items.length}${outcome.items.length ? ` (${this.describe(outcome.items)})` : ''}`}`,
		);
		if (priming && outcome.items.length)
			this.violation('priming', `the priming poll emitted ${outcome.items.length} items`);
		const end = this.observe(ep);
		this.record(ep, outcome, {
			start,
			end,
			checked:
				!faulted && !this.changedDuringPoll && !outcome.error && !(overlap && overlap.items.length),
		});
		if (!activation && outcome.items.length) this.save();
		if (outcome.items.length && step.react) {
			for (const item of outcome.items)
				if (
					ep.event === 'new-mail' &&
					(item.json.id.length * 7919 + Number(item.json.id)) % 1000 < step.react.share * 1000
				)
					this.act(String(item.json.id), step.react.action);
			this.log(
				`  the workflow: ${step.react.action} ${Math.round(step.react.share * 100)}% of what it received`,
			);
		}
		return outcome;
	}

	async runOne() {
		try {
			const { result } = await this.pollFn({
				parameters: this.parameters(),
				credentials: this.credentials,
				staticData: this.live,
				workflowId: this.workflowId,
			});
			return { items: result?.[0] ?? [] };
		} catch (error) {
			return { items: [], error };
		}
	}

	describe(items) {
		const ids = items.map((i) =>
			this.epoch.event === 'new-mail'
				? i.json.id
				: `${String(i.json.id).slice(0, 8)}@${i.json.status_updated_at}`,
		);
		return ids.length > 6
			? `${ids.slice(0, 3).join(', ')} … ${ids.slice(-2).join(', ')}`
			: ids.join(', ');
	}

	// ---- the oracle ----
	startEpoch() {
		const { event, filters } = this.config;
		const ep = {
			event,
			filters,
			primingSeq: this.seq,
			primingClock: this.clock,
			emitted: new Set(),
			top: [],
			floor: undefined,
			newest: undefined,
			pending: new Map(),
			suspects: [],
			reported: [],
			outOfReach: new Set(),
			seen: new Map(),
		};
		if (event === 'new-mail') {
			// Priming records the newest items of the whole mailbox within the window (at most MAX_REMEMBERED).
			const keys = this.db.mails
				.filter((m) => m.arrival_date)
				.map(keyOf)
				.sort((a, b) => cmp(b, a));
			if (keys.length) {
				const windowStart = keys[0][0] - LATE_WINDOW_MS;
				ep.top = keys.filter((k) => k[0] >= windowStart).slice(0, MAX_REMEMBERED);
				this.raiseFloor(ep, { atOnce: true });
			}
		}
		this.epoch = ep;
	}

	/**
	 * After priming (`atOnce`) and after every poll that ran to its end: the floor's MAX_REMEMBERED
	 * part lags one such poll (docs/poll-trigger.md: the 1,000th newest recorded item as the previous poll ended).
	 */
	raiseFloor(ep, { atOnce = false } = {}) {
		if (!ep.top.length) return;
		ep.newest = ep.top[0];
		const remembered = ep.top.length >= MAX_REMEMBERED ? ep.top[MAX_REMEMBERED - 1] : undefined;
		const candidates = [
			[ep.top[0][0] - LATE_WINDOW_MS, -Infinity],
			atOnce ? remembered : ep.remembered,
		];
		ep.remembered = remembered;
		for (const c of candidates) if (c && (!ep.floor || cmp(c, ep.floor) > 0)) ep.floor = c;
	}

	/** What the oracle needs from the mailbox at a poll's start or end. */
	observe(ep) {
		if (ep.event === 'new-mail') {
			const inQ = new Map(); // id → order key
			let aboveFloor = 0;
			for (const m of this.db.mails) {
				// Without an arrival date an item is never new mail (docs/poll-trigger.md, limit 6).
				if (!m.arrival_date || !matches(m, ep.filters)) continue;
				const key = keyOf(m);
				if (!above(key, ep.floor)) continue;
				aboveFloor++;
				inQ.set(m.id, key);
			}
			return {
				inQ,
				aboveFloor,
				floor: ep.floor,
				outOfReach: aboveFloor > DEPTH_LIMIT ? this.outOfReach(ep) : undefined,
			};
		}
		const versions = new Map();
		for (const s of this.db.scans)
			if (s.type === SCAN_TYPE[ep.event])
				versions.set(s.id, this.scanLog.get(s.id).versions.length - 1);
		return { versions };
	}

	/**
	 * The items of Q above the floor that no division can list: a read is divided by status, mail
	 * type, scan status and read state, so an item is out of reach when its finest part lists
	 * DEPTH_LIMIT newer items before it.
	 */
	outOfReach(ep) {
		const out = new Set();
		const depth = new Map();
		const listed = this.db.mails
			.filter((m) => m.arrival_date && matches(m, ep.filters))
			.sort((a, b) => cmp(keyOf(b), keyOf(a)));
		for (const m of listed) {
			const part = [
				m.mail_status,
				m.mail_type,
				m.scan ? m.scan.status.toLowerCase() : 'none',
				m.is_read,
			].join('|');
			const position = depth.get(part) ?? 0;
			depth.set(part, position + 1);
			if (position >= DEPTH_LIMIT && above(keyOf(m), ep.floor)) out.add(m.id);
		}
		return out;
	}

	record(ep, outcome, { start, end, checked = false, overlapped = false }) {
		for (const id of start?.outOfReach ?? []) ep.outOfReach.add(id);
		for (const date of outcome.error?.message.match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g) ??
			[])
			ep.reported.push(Date.parse(date));
		if (outcome.items.length > MAX_EMIT_PER_POLL)
			this.violation('cap', `one poll emitted ${outcome.items.length} > ${MAX_EMIT_PER_POLL}`);
		if (ep.event === 'new-mail') this.recordMail(ep, outcome, { start, end, checked, overlapped });
		else this.recordScans(ep, outcome, { start, end, checked, overlapped });
	}

	recordMail(ep, { items, error }, { start, end, checked, overlapped }) {
		// The trigger raises its floor at the end of a poll that ran to its end (not an overlapped one).
		const raise = () => !error && !overlapped && this.raiseFloor(ep);
		let previous;
		for (const item of items) {
			const id = String(item.json.id);
			const key = [Date.parse(item.json.arrival_date), Number(id)];
			if (ep.emitted.has(id)) this.violation('exactly-once', `mail ${id} emitted twice`);
			if (!item.json.arrival_date)
				this.violation(
					'undated',
					`mail ${id} emitted without an arrival date (docs/poll-trigger.md: never while it has none)`,
				);
			const loggedAt = this.logged.get(id) ?? 0;
			if (loggedAt <= ep.primingSeq)
				this.violation(
					'nothing-before-activation',
					`mail ${id} (arrived ${item.json.arrival_date}) was in the mailbox before the activation or last edit, yet emitted`,
				);
			if (previous && cmp(key, previous) < 0)
				this.violation('oldest-first', `mail ${id} emitted after a newer item`);
			previous = key;
			ep.emitted.add(id);
			ep.pending.delete(id);
			this.emittedToWorkflow.push(id);
			ep.top.push(key);
			this.stats.emitted++;
		}
		if (this.emittedToWorkflow.length > 5_000) this.emittedToWorkflow.splice(0, 2_500);
		ep.top.sort((a, b) => cmp(b, a));
		ep.top.length = Math.min(ep.top.length, MAX_REMEMBERED);
		if (overlapped || !start) return raise();
		// New mail at this poll: in Q at its start and its end, above the floor at its start, logged after the priming.
		const fresh = [...start.inQ.keys()].filter(
			(id) => end.inQ.has(id) && !ep.emitted.has(id) && (this.logged.get(id) ?? 0) > ep.primingSeq,
		);
		const capped = items.length >= MAX_EMIT_PER_POLL;
		const newestEmitted = previous;
		const onDateEdge = (key) =>
			start.floor && start.floor[1] === -Infinity && Math.abs(key[0] - start.floor[0]) <= EDGE_MS;
		if (checked && start.aboveFloor <= DEPTH_LIMIT) {
			for (const id of fresh) {
				const key = end.inQ.get(id);
				if (onDateEdge(key)) continue;
				if (!capped)
					this.violation(
						'every-new-item',
						`mail ${id} (arrived ${iso(key[0])}, logged at step ${this.stepOf(id)}) matched the query at the start and end of this poll, nothing changed meanwhile, above the floor ${showKey(start.floor)}, yet not emitted (${items.length} emitted)`,
					);
				if (cmp(key, newestEmitted) < 0)
					this.violation(
						'every-new-item',
						`mail ${id} (arrived ${iso(key[0])}) is older than items this capped poll emitted (oldest first), yet not emitted`,
					);
			}
		}
		// Pending: new mail that a later poll must emit while it matches. It leaves when it stops matching.
		for (const id of [...ep.pending.keys()])
			if (!start.inQ.has(id) || !end.inQ.has(id)) ep.pending.delete(id);
		for (const id of fresh)
			if (!ep.pending.has(id))
				ep.pending.set(id, { key: end.inQ.get(id), since: this.stepIndex, checked });
		raise();
		// The floor passed a pending item: allowed by limit 1 (beyond the late window of the newest
		// recorded), or if an error names its arrival date (limit 4); judged when the epoch ends.
		for (const [id, p] of ep.pending) {
			if (
				above(p.key, ep.floor) &&
				!(ep.floor[1] === -Infinity && Math.abs(p.key[0] - ep.floor[0]) <= EDGE_MS)
			)
				continue;
			ep.pending.delete(id);
			if (p.key[0] < ep.newest[0] - LATE_WINDOW_MS + EDGE_MS) continue;
			// Limit 3: missed by a poll the list moved under, then by the next poll, moved under too,
			// which raised the floor past it (the 1,000-remembered part lags only one poll).
			if (!checked && p.since < this.stepIndex) continue;
			ep.suspects.push({ id, key: p.key, since: p.since, at: this.stepIndex });
		}
	}

	recordScans(ep, { items }, { start, end, checked }) {
		for (const item of items) {
			const key = `${item.json.id}@${item.json.status_updated_at}`;
			if (ep.emitted.has(key)) this.violation('exactly-once', `completion ${key} emitted twice`);
			if (item.json.status !== 'COMPLETED')
				this.violation('completions-only', `${key} emitted with status ${item.json.status}`);
			if (Date.parse(item.json.status_updated_at) < ep.primingClock)
				this.violation(
					'nothing-before-activation',
					`completion ${key} predates the activation or last edit, yet emitted`,
				);
			ep.emitted.add(key);
			this.stats.emitted++;
		}
		if (!start) return;
		for (const [id, version] of start.versions) {
			if (end.versions.get(id) !== version) continue;
			const log = this.scanLog.get(id);
			const { status, at } = log.versions[version];
			if (isUnfinished(status)) {
				if (!ep.seen.has(id)) ep.seen.set(id, new Set());
				ep.seen.get(id).add(version);
				continue;
			}
			if (status !== 'COMPLETED' || !checked) continue;
			const key = `${id}@${iso(at)}`;
			if (ep.emitted.has(key)) continue;
			let before = version - 1;
			while (before >= 0 && log.versions[before].status !== 'COMPLETED') before--;
			const seenSince = [...(ep.seen.get(id) ?? [])].some((v) => v > before && v < version);
			const createdAfter = before < 0 && log.created > ep.primingSeq;
			if (seenSince || createdAfter)
				this.violation(
					'every-completion',
					`completion ${key} (${log.versions.map((v) => v.status).join(' → ')}) ${createdAfter ? 'of a scan requested after the activation' : 'of a scan a poll saw in process'} is COMPLETED at the start and end of this poll, yet was never emitted`,
				);
		}
	}

	stepOf(id) {
		return this.logged.get(id) ?? 'seed';
	}

	endEpoch() {
		const ep = this.epoch;
		if (!ep) return;
		for (const s of ep.suspects) {
			if (ep.emitted.has(s.id)) continue;
			// Limit 4 excuses only mail that was out of reach (outOfReach) at a poll, and an error named its dates.
			const named =
				ep.reported.some((d) => Math.abs(d - s.key[0]) <= EDGE_MS) ||
				(ep.reported.length >= 2 &&
					s.key[0] >= Math.min(...ep.reported) - EDGE_MS &&
					s.key[0] <= Math.max(...ep.reported) + EDGE_MS);
			const reported = named && ep.outOfReach.has(s.id);
			if (!reported)
				this.violation(
					'never-skipped-silently',
					`mail ${s.id} (arrived ${iso(s.key[0])}) was new mail from step ${s.since}, matched the query at every poll since, and the floor passed it at step ${s.at} without emitting it or an error naming its arrival date`,
				);
		}
		this.epoch = undefined;
	}
}

/**
 * A simulator and credentials for model runs; fast retries so that faulty polls end quickly.
 * `reference(sim)`: a poll function to check instead of the built node (reference-trigger.mjs).
 */
export async function startModel({ reference } = {}) {
	const sim = await startSimulator({ count: 300 });
	try {
		Object.assign(dist('nodes/shared/state/retryPolicy.js').retryPolicy, {
			baseDelayMs: 1,
			maxDelayMs: 2,
			budgetMs: 50,
		});
	} catch {
		// a build without the shared retry policy retries as it does
	}
	const credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
	return { sim, credentials, pollFn: reference?.(sim), close: () => sim.close() };
}

/** Runs a history; returns { violation, stats, lines } (with `collect`, also `found`: every property broken). */
export async function runHistory(model, history, seed, { collect = false } = {}) {
	const lines = [];
	const run = new ModelRun(model.sim, {
		credentials: model.credentials,
		pollFn: model.pollFn,
		collect,
		log: (line) => lines.push(`[${run.stepIndex}] ${line}`),
	});
	try {
		const stats = await run.play(history, { seed });
		return { stats, lines, found: [...run.found.values()] };
	} catch (error) {
		model.sim.settings.onRequest = undefined;
		if (!(error instanceof Violation)) throw error;
		run.stats.requests = model.sim.requests.length;
		return { violation: error, stats: run.stats, lines };
	}
}

/**
 * Shrinks a failing history: the shortest prefix that fails the same property, then drops chunks
 * of steps (halves down to single steps) while it still fails. Returns the smallest history found.
 */
export async function shrink(model, history, seed, property, { budgetMs = 60_000 } = {}) {
	const deadline = Date.now() + budgetMs;
	const fails = async (h) => (await runHistory(model, h, seed)).violation?.property === property;
	const first = await runHistory(model, history, seed);
	let best = history.slice(0, first.violation.step + 1);
	for (
		let size = Math.max(1, Math.floor(best.length / 2));
		size >= 1 && Date.now() < deadline;
		size = Math.floor(size / 2)
	) {
		for (let from = 1; from < best.length && Date.now() < deadline; ) {
			const candidate = [...best.slice(0, from), ...best.slice(from + size)];
			if (await fails(candidate)) {
				const again = await runHistory(model, candidate, seed);
				best = candidate.slice(0, again.violation.step + 1);
			} else from += size;
		}
	}
	return best;
}
