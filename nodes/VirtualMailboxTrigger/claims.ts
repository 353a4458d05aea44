import type { IDataObject } from 'n8n-workflow';

import { detectEvent, identityOf } from './events';

/**
 * Exactly once across n8n processes. The webhook process's own checks (deliveries.ts) see only
 * that process's memory, and n8n does not reliably save a webhook's static data, so the execution
 * of every accepted delivery claims it in n8n's database-backed deduplication store (the one the
 * Remove Duplicates node uses) before anything downstream runs: in queue mode on the worker, in a
 * single n8n in the main process, both sharing the database, so copies, replays to another webhook
 * process and replays after a restart run once.
 *
 * n8n's store keeps one list per node and updates it read-modify-write without a lock: two
 * executions that record at the same moment can each overwrite the other's entry. So each claim
 * records the delivery's key together with a claim of its own (key@execution) in one write, waits
 * until any write that overlapped it has landed (claimPolicy.settleMs), and records both again:
 * - its own claim is there: its write is the one that stood; it runs;
 * - the key is there but not its claim: another copy's write replaced it; that copy runs;
 * - neither (a write for another delivery replaced both): the check just wrote them again; check
 *   once more. After claimPolicy.maxRounds it runs, since a rare duplicate is better than a lost
 *   delivery.
 * This holds while every write to the store finishes within settleMs (milliseconds on a healthy
 * database); one process's writes go one at a time (state/claimQueues.ts), so only writes from
 * other processes can overlap.
 */
export const claimPolicy = {
	settleMs: 300,
	maxRounds: 3,
	/** The store's bound: a delivery takes two or three entries, so about the last 4,000 deliveries. */
	maxEntries: 10_000,
};

/** What the claim protocol needs of the store: record values, answer which were there before. */
export interface ClaimStore {
	record(values: string[]): Promise<Set<string>>;
}

export type ClaimOutcome = 'new' | 'duplicate' | 'unsettled';

/** Pure (given a store): claim `key` for `claimant` (an execution id). See the module comment. */
export async function claimDelivery(store: ClaimStore, key: string, claimant: string, wait: (ms: number) => Promise<void>): Promise<ClaimOutcome> {
	const claim = `${key}@${claimant}`;
	if ((await store.record([key, claim])).has(key)) return 'duplicate';
	for (let round = 0; round < claimPolicy.maxRounds; round++) {
		await wait(claimPolicy.settleMs);
		const present = await store.record([key, claim]);
		if (present.has(claim)) return 'new';
		if (present.has(key)) return 'duplicate';
	}
	return 'unsettled';
}

/**
 * Fields the trigger adds to a delivery's item (Add Full Resource, Download File, the reasons
 * when they fail): not part of what was delivered.
 */
const ADDED_FIELDS = new Set(['event', 'mail_item', 'mail_item_error', 'scan_summary', 'scan_summary_error', 'shipment', 'shipment_error', 'download_error', 'enrichment_error']);

/** The key of the delivery an item of the trigger carries (the webhook's duplicate key), if any. */
export function deliveryKeyOf(json: IDataObject): string | undefined {
	const body: IDataObject = {};
	for (const [field, value] of Object.entries(json)) if (!ADDED_FIELDS.has(field)) body[field] = value;
	const event = typeof json.event === 'string' ? detectEvent(body, [json.event]) : undefined;
	if (!event || event !== json.event) return undefined;
	const identity = identityOf(event, body);
	return `${identity.resource}|${identity.version}`;
}
