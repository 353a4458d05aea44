import type { IDataObject } from 'n8n-workflow';

import { claimQueues } from '../shared/state/claimQueues';
import { detectEvent, identityOf } from './events';

/**
 * Exactly once across n8n processes. The webhook process's own checks (deliveries.ts) see only
 * that process's memory, and n8n does not reliably save a webhook's static data, so the execution
 * of every accepted delivery claims it in n8n's database-backed deduplication store (the one the
 * Remove Duplicates node uses) before anything downstream runs: in queue mode on the worker, in a
 * single n8n in the main process, both sharing the database, so copies, replays to another webhook
 * process and replays after a restart run once.
 *
 * n8n's store (its processed_data table, the same code on n8n 1.x and 2.x) keeps one row per node,
 * a list it reads (findOne) and then writes back whole (update) without a lock or a version; the
 * only atomic step is the row's first insert. A record answers which of its values the read saw,
 * and writes them all. Between the read and the update of one process another's update may land,
 * and is then overwritten: a busy event loop or a wait for one of the pool's connections puts any
 * time there. Nothing can be asked without being written, and nobody's entries can be listed.
 *
 * The claim is a tournament of markers: `key` (level 1), then `key#2`, `key#3`... A copy at level k
 * records marker k with its own claim (`key@execution`): if marker k was there, a copy that read
 * before it exists, ranked earlier, and this copy is out. If not, it waits for overlapping writes
 * to land (settleMsFor) and records its claim alone: there, its write stood, no copy tied with it
 * overwrote it; it records marker k+1 and, if that is still absent, runs ('new'). Missing, a tied
 * copy overwrote it: it waits twice as long (the tied copy records marker k+1 meanwhile) and goes
 * to level k+1. A copy that is out answers 'duplicate' only once a record shows its own claim there
 * together with the earlier marker (not before: that would trust a read its own write may have
 * overwritten); until then it records again. A claim that has not decided within
 * claimPolicy.maxClaimMs runs ('unsettled').
 *
 * Why no delivery can be lost, whatever the timings: a copy answers 'duplicate' only after seeing
 * a marker it did not write first. Take the highest marker any copy of a delivery wrote: the first
 * write of it to land was read before anything held it, so its copy saw it absent, and so is not
 * out. That copy either ran (won at that level), or would have gone on to a higher marker (there
 * is none), or ran at the ceiling. An earlier run's markers (a replay) count the same way: that run
 * ran. Past the ceiling, copies may run twice; none is lost.
 *
 * Why copies run once (the limit): the update of a copy that read before the winner's writes
 * landed overwrites them, markers included, and the other copy cannot tell. So a winner keeps its
 * key, marker and claim in the store (holdEntries): it records them again at doubling
 * intervals (0.3 s, 0.6 s, 1.2 s...) for claimPolicy.holdMs. A copy whose write lands late has
 * measured that write (its own read-to-update time is in it) and waits three times as long before
 * it checks, by when the winner has written them again. What is left: a process whose update lands
 * more than claimPolicy.holdMs (30 s) after its read, or whose one write is slower than three times
 * the writes that copy measured before it (the wait follows what it measured, not what it will
 * see), or whose writes fail. The model test (trigger-claims.test.mjs) counts those doubles and
 * checks each had such a write.
 */
export const claimPolicy = {
	/**
	 * The shortest wait: on a healthy database a write takes milliseconds, but the process that
	 * made an overlapping write may be busy between its read and its write (another execution's
	 * code on the same worker).
	 */
	minSettleMs: 300,
	/**
	 * The wait per measured write: writes to one row queue behind each other in Postgres (a row
	 * lock), and one process's claims write one at a time (state/claimQueues.ts), so a write that
	 * overlapped this one lands within a few write times.
	 */
	settleFactor: 3,
	/**
	 * How many waits a copy whose claim was overwritten lets pass before it goes on to the next
	 * marker: the copy that overwrote it landed later, may have measured longer writes (it queued
	 * behind this one), and must have written its marker by then.
	 */
	loserFactor: 4,
	/** The longest wait (writes of 10 s at settleFactor 3). */
	maxSettleMs: 30_000,
	/** A claim undecided after this long runs ('unsettled'): a store this slow cannot settle copies. */
	maxClaimMs: 180_000,
	/** How long a winner writes its entries again (holdEntries), at doubling intervals from minSettleMs. */
	holdMs: 30_000,
	/**
	 * How many markers above its own level a winner holds: a copy it tied with at its last record
	 * (both read before the other's write landed) goes on to the next level and the one after,
	 * and must find them there.
	 */
	heldLevels: 3,
	/** Each interval between a winner's rewrites is this many times the one before. */
	holdGrowth: 1.5,
	/**
	 * After each of its writes a process pauses this many times a typical recent write (the lowest
	 * quarter of its last writes, its first write left out: a cold connection, the row's insert),
	 * before its next: the writes other processes started meanwhile land first (in Postgres they
	 * queue behind this one), so its next write builds on theirs.
	 */
	pauseFactor: 4,
	/** The longest pause. */
	maxPauseMs: 4_000,
	/**
	 * A write to the store that has not answered in this long fails the claims in it (a hung
	 * connection), or in ten times this process's typical recent write if that is longer (a slow
	 * store, where writes also queue behind other processes' for the row's lock).
	 */
	writeDeadlineMs: 120_000,
	/** The store's bound: a delivery takes five or six entries (key, markers, claims), so about the last 1,700 deliveries. */
	maxEntries: 10_000,
};

/** What a record answers: which values were there before, and how long the write took (not the time spent queued for it). */
export interface Recorded {
	present: Set<string>;
	writeMs: number;
	/** A write tried again after one that failed or timed out, which may have landed: what it finds there may be its own. */
	retried?: boolean;
}

/** What the claim protocol needs of the store: record values, answer which were there before. */
export interface ClaimStore {
	record(values: string[]): Promise<Recorded>;
}

export type ClaimOutcome = 'new' | 'duplicate' | 'unsettled';

/** How long a claim waits for overlapping writes after writes that took up to `writeMs`. */
export function settleMsFor(writeMs: number): number {
	return Math.min(claimPolicy.maxSettleMs, Math.max(claimPolicy.minSettleMs, claimPolicy.settleFactor * writeMs));
}

/** Pure (given a store): claim `key` for `claimant` (an execution id). See the module comment. */
export async function claimDelivery(store: ClaimStore, key: string, claimant: string, wait: (ms: number) => Promise<void>): Promise<ClaimOutcome> {
	const marker = (level: number) => (level === 1 ? key : `${key}#${level}`);
	// The claim is one per level: copies tied at a level overwrite each other's claim of that level.
	const claimAt = (level: number) => (level === 1 ? `${key}@${claimant}` : `${key}@${claimant}#${level}`);
	let spentMs = 0;
	let longestWriteMs = 0;
	const record = async (values: string[]) => {
		const result = await store.record(values);
		spentMs += result.writeMs;
		longestWriteMs = Math.max(longestWriteMs, result.writeMs);
		if (!result.retried) return result.present;
		// A marker found by a write tried again may be its own first try's: not evidence of another copy.
		return new Set([...result.present].filter((value) => value.startsWith(`${key}@`)));
	};
	const pause = async (ms: number) => {
		await wait(ms);
		spentMs += ms;
	};
	const tournament = async (): Promise<ClaimOutcome> => {
		let level = 1;
		let claim = claimAt(level);
		let out = (await record([marker(level), claim])).has(marker(level));
		while (spentMs < claimPolicy.maxClaimMs) {
			await pause(settleMsFor(longestWriteMs));
			if (out) {
				if ((await record([key, claim])).has(claim)) return 'duplicate';
				continue;
			}
			if ((await record([key, claim])).has(claim)) {
				const next = await record([key, marker(level + 1), claim]);
				if (!next.has(marker(level + 1))) {
					const held = Array.from({ length: claimPolicy.heldLevels }, (_, above) => marker(level + 1 + above));
					void holdEntries([key, ...held, claim], store, wait);
					return 'new';
				}
				if (next.has(claim)) return 'duplicate';
				out = true;
				continue;
			}
			await pause(Math.min(claimPolicy.maxSettleMs, claimPolicy.loserFactor * settleMsFor(longestWriteMs)));
			level++;
			claim = claimAt(level);
			const entered = await record([key, marker(level), claim]);
			out = entered.has(marker(level));
		}
		return 'unsettled';
	};
	// A write that timed out: the claim runs rather than wait on it (never lost); other errors fail it.
	return await tournament().catch(async (error: unknown) => (error instanceof StoreDeadlineError ? 'unsettled' : await Promise.reject(error)));
}

/** One write to n8n's store. */
export type StoreWrite = (values: string[]) => Promise<Recorded>;

export interface BatchedStore {
	record(values: string[], write: StoreWrite): Promise<Recorded>;
}

/** A write to the store that did not answer in time (claimPolicy.writeDeadlineMs): the claim runs rather than wait on it. */
export class StoreDeadlineError extends Error {}

/** The lowest quarter of `samples`, 0 with none. */
function lowQuarterOf(samples: number[]): number {
	if (!samples.length) return 0;
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.floor((sorted.length - 1) / 4)];
}

/**
 * Pure (given `wait`): the store for one process and trigger node, whose records share writes.
 * Records made while a write or the pause after it is under way wait and go together in the next
 * write (by the `write` of the first of them), so the process has one write at a time, however
 * many claims it runs. After each write it pauses (claimPolicy.pauseFactor): a write another
 * process started meanwhile lands first, and the next write builds on it. Without the pause two
 * busy processes overwrite each other's every write, and each one's claims see only its own
 * entries. A value asked for twice in one write is there before for the second asker, as if they
 * had written one after the other. A write that fails, or does not answer within
 * claimPolicy.writeDeadlineMs, is tried again for each of its records alone, by its own `write`:
 * only a record whose own write fails fails. `idle` runs when nothing waits.
 */
export function batchedStore(wait: (ms: number) => Promise<void>, idle: () => void = () => {}): BatchedStore {
	type Waiting = {
		values: string[];
		write: StoreWrite;
		alone: boolean;
		resolve: (result: Recorded) => void;
		reject: (error: unknown) => void;
	};
	const waiting: Waiting[] = [];
	let busy = false;
	let writes = 0;
	const recentWriteMs: number[] = [];
	const withDeadline = async (write: Promise<Recorded>) => {
		const deadlineMs = Math.max(claimPolicy.writeDeadlineMs, 10 * lowQuarterOf(recentWriteMs));
		return await Promise.race([
			write,
			wait(deadlineMs).then(() => {
				throw new StoreDeadlineError(`n8n's deduplication store did not answer within ${Math.round(deadlineMs / 1000)} s`);
			}),
		]);
	};
	const drain = async () => {
		busy = true;
		while (waiting.length) {
			const batch = waiting[0].alone ? waiting.splice(0, 1) : waiting.splice(0, waiting.findIndex((r) => r.alone) + 1 || waiting.length);
			try {
				const result = await withDeadline(batch[0].write([...new Set(batch.flatMap((r) => r.values))]));
				if (writes++ > 0) recentWriteMs.push(result.writeMs);
				if (recentWriteMs.length > 16) recentWriteMs.shift();
				const asked = new Set<string>();
				for (const r of batch) {
					r.resolve({ present: new Set(r.values.filter((v) => result.present.has(v) || asked.has(v))), writeMs: result.writeMs, retried: r.alone || result.retried });
					for (const v of r.values) asked.add(v);
				}
			} catch (error) {
				if (batch.length === 1) batch[0].reject(error);
				else waiting.unshift(...batch.map((r) => ({ ...r, alone: true })));
			}
			await wait(Math.min(claimPolicy.maxPauseMs, claimPolicy.pauseFactor * lowQuarterOf(recentWriteMs)));
		}
		busy = false;
		idle();
	};
	return {
		record: async (values, write) =>
			await new Promise((resolve, reject) => {
				waiting.push({ values, write, alone: false, resolve, reject });
				if (!busy) void drain();
			}),
	};
}

/**
 * The store as the trigger's claims use it: `record` is one call to n8n's store, timed here; the
 * node's first record, which loses when another process inserts the node's row at the same moment,
 * is tried once more. This process's claims for one trigger node (`scope`) share one batchedStore.
 */
export function queuedStore(scope: string, record: (values: string[]) => Promise<Set<string>>, wait: (ms: number) => Promise<void>): ClaimStore {
	const timed = async (values: string[]) => {
		const started = Date.now();
		const present = await record(values);
		return { present, writeMs: Date.now() - started };
	};
	const write: StoreWrite = async (values) => {
		try {
			return await timed(values);
		} catch {
			await wait(claimPolicy.minSettleMs);
			return { ...(await timed(values)), retried: true };
		}
	};
	return {
		record: async (values) => await claimQueues.of(scope, (forget) => batchedStore(wait, forget)).record(values, write),
	};
}

/** A winner's entries written again at doubling intervals from claimPolicy.minSettleMs for claimPolicy.holdMs (see the module comment). */
async function holdEntries(values: string[], store: ClaimStore, wait: (ms: number) => Promise<void>): Promise<void> {
	for (let interval = claimPolicy.minSettleMs, heldMs = 0; heldMs + interval <= claimPolicy.holdMs; heldMs += interval, interval *= claimPolicy.holdGrowth) {
		await wait(interval);
		await store.record(values).catch(() => undefined); // a failed write only weakens the hold
	}
}

/**
 * Fields the trigger adds to a delivery's item (Add Full Resource, Download File, the reasons
 * when they fail): not part of what was delivered.
 */
const ADDED_FIELDS = new Set(['event', 'mail_item', 'mail_item_error', 'scan_summary', 'scan_summary_error', 'shipment', 'shipment_error', 'download_error', 'enrichment_error']);

/**
 * The claim key of an item the trigger output at node version `typeVersion`. Version 2 keeps the
 * delivery as sent in `delivery`; at versions 1 and 1.1 the item is the delivery, so a `delivery`
 * field there is one the sender put in, read like any other field.
 */
export function claimKeyOf(json: IDataObject, typeVersion: number): string | undefined {
	if (typeVersion < 2) return deliveryKeyOf(json);
	const sent = json.delivery;
	if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return undefined;
	return deliveryKeyOf({ event: json.event, ...(sent as IDataObject) });
}

/** The key of the delivery an item of the trigger carries (the webhook's duplicate key), if any. */
export function deliveryKeyOf(json: IDataObject): string | undefined {
	const body: IDataObject = {};
	for (const [field, value] of Object.entries(json)) if (!ADDED_FIELDS.has(field)) body[field] = value;
	const event = typeof json.event === 'string' ? detectEvent(body, [json.event]) : undefined;
	if (!event || event !== json.event) return undefined;
	const identity = identityOf(event, body);
	return `${identity.resource}|${identity.version}`;
}
