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
 * a list it updates read-modify-write without a lock or a version; the only atomic step it offers
 * is the row's first insert (the primary key fails a second one), once per node, not per delivery.
 * So two executions that record at the same moment can each overwrite the other's entry, and each
 * claim records the delivery's key together with a claim of its own (key@execution) in one write,
 * waits until any write that overlapped it has landed, and records both again:
 * - its own claim is there: its write is the one that stood; it runs;
 * - the key is there but not its claim: another copy's write replaced it; that copy runs;
 * - neither (a write for another delivery replaced both): the check just wrote them again; check
 *   once more. After claimPolicy.maxRounds it runs, since a rare duplicate is better than a lost
 *   delivery.
 * The wait follows the store (settleMsFor): a write that overlapped this claim's had started
 * before it landed, so it lands within a few write times; the claim waits settleFactor times the
 * longest write it has measured itself, at least minSettleMs, at most maxSettleMs. And one
 * process's claims for a node share its writes, one at a time with a pause after each
 * (batchedStore): two processes writing back to back would otherwise overwrite each other's every
 * write for as long as the load lasts, longer than any wait, and each one's claims would see only
 * its own entries. Past the ceiling the wait cannot vouch for the check, so a claim that finds
 * another copy's claim instead of its own runs anyway ('unsettled'): copies sent at the same moment
 * may then both run, none is lost. The model test (trigger-claims.test.mjs) is what shows these
 * waits enough, not a proof: the store offers nothing to build one on.
 */
export const claimPolicy = {
	/**
	 * The shortest wait: on a healthy database a write takes milliseconds, but the process that
	 * made an overlapping write may be busy between its read and its write (another execution's
	 * code on the same worker); 0.3 s held in every measured run on a fast store.
	 */
	minSettleMs: 300,
	/**
	 * The wait per measured write. Writes to one row queue behind each other in Postgres (a row
	 * lock), and one process's claims write one at a time (state/claimQueues.ts), so a write that
	 * overlapped this one lands at most one write time per other process after it: 3 covers four
	 * processes writing at once, and slower writes elsewhere for fewer.
	 */
	settleFactor: 3,
	/**
	 * The longest wait (writes of 10 s at settleFactor 3). A claim then costs some six write times
	 * (two writes, and the pause after the first, see pauseFactor), here a minute of a worker's
	 * execution slot; past that the store is too slow to settle copies, and running them beats
	 * holding every execution longer.
	 */
	maxSettleMs: 30_000,
	/**
	 * After each of its writes a process pauses this many times as long as the write took, before
	 * its next (batchedStore): long enough for the writes other processes started meanwhile to land
	 * (in Postgres they queue behind this one), so that its next write builds on theirs. In the
	 * model test (trigger-claims.test.mjs, 1,500 schedules each of 2, 3 and 4 busy processes) a
	 * pause of 2 write times still lost 3 and doubled 3 of 12,000 deliveries with 4 processes, 3 or
	 * 2.5 doubled one with 3; 4 none.
	 */
	pauseFactor: 4,
	maxRounds: 3,
	/** The store's bound: a delivery takes two or three entries, so about the last 4,000 deliveries. */
	maxEntries: 10_000,
};

/** What a record answers: which values were there before, and how long the write took (not the time spent queued for it). */
export interface Recorded {
	present: Set<string>;
	writeMs: number;
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
	const claim = `${key}@${claimant}`;
	const first = await store.record([key, claim]);
	if (first.present.has(key)) return 'duplicate';
	let longestWriteMs = first.writeMs;
	for (let round = 0; round < claimPolicy.maxRounds; round++) {
		const settleMs = settleMsFor(longestWriteMs);
		const settled = settleMs >= claimPolicy.settleFactor * longestWriteMs;
		await wait(settleMs);
		const check = await store.record([key, claim]);
		if (check.present.has(claim)) return 'new';
		if (check.present.has(key)) return settled ? 'duplicate' : 'unsettled';
		longestWriteMs = Math.max(longestWriteMs, check.writeMs);
	}
	return 'unsettled';
}

/** One write to n8n's store. */
export type StoreWrite = (values: string[]) => Promise<Recorded>;

export interface BatchedStore {
	record(values: string[], write: StoreWrite): Promise<Recorded>;
}

/**
 * Pure (given `wait`): the store for one process and trigger node, whose records share writes.
 * Records made while a write or the pause after it is under way wait and go together in the next
 * write (by the `write` of the first of them), so the process has one write at a time, however
 * many claims it runs. After each write it pauses (claimPolicy.pauseFactor): a write another
 * process started meanwhile lands first, and the next write builds on it. Without the pause two
 * busy processes overwrite each other's every write, and each one's claims see only its own
 * entries. A value asked for twice in one write is there before for the second asker, as if they
 * had written one after the other. `idle` runs when nothing waits.
 */
export function batchedStore(wait: (ms: number) => Promise<void>, idle: () => void = () => {}): BatchedStore {
	type Waiting = { values: string[]; write: StoreWrite; resolve: (result: Recorded) => void; reject: (error: unknown) => void };
	let waiting: Waiting[] = [];
	let busy = false;
	const drain = async () => {
		busy = true;
		while (waiting.length) {
			const batch = waiting;
			waiting = [];
			let writeMs = 0;
			try {
				const result = await batch[0].write([...new Set(batch.flatMap((r) => r.values))]);
				writeMs = result.writeMs;
				const asked = new Set<string>();
				for (const r of batch) {
					r.resolve({ present: new Set(r.values.filter((v) => result.present.has(v) || asked.has(v))), writeMs });
					for (const v of r.values) asked.add(v);
				}
			} catch (error) {
				for (const r of batch) r.reject(error);
			}
			await wait(claimPolicy.pauseFactor * writeMs);
		}
		busy = false;
		idle();
	};
	return {
		record: async (values, write) =>
			await new Promise((resolve, reject) => {
				waiting.push({ values, write, resolve, reject });
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
			return await timed(values);
		}
	};
	return { record: async (values) => await claimQueues.of(scope, (forget) => batchedStore(wait, forget)).record(values, write) };
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
