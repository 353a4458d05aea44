import type { IDataObject } from 'n8n-workflow';

/** What the poll trigger remembers between polls (workflow static data), bounded in size. */
export interface PollState extends IDataObject {
	primed?: boolean;
	/**
	 * New mail: ids of the newest items already emitted or seen, in list order (newest first): a
	 * prefix of the list, so an id below the first seen one and above the last is new if not here.
	 */
	seenIds?: string[];
	/** New mail: the query's total_count at the last poll. */
	total?: number;
	/** New mail: arrival time of the newest item seen; anything older is not new. */
	newestArrival?: string;
	/** Scans: pending (in process or restoring) scan id → mail id, as of the last poll. */
	pending?: Record<string, string>;
	/** Scans: ids of completions already emitted. */
	emitted?: string[];
}

export const MAX_SEEN = 1_000;
export const MAX_PENDING = 5_000;
/** Pages a poll reads below the first seen item, looking for mail logged late. */
export const MAX_LATE_PAGES = 10;

/**
 * Pure: walk newest-first pages until an item already seen. Returns the new items (newest first)
 * and whether to stop. An item older than the newest one seen before is not new either (it can
 * only be an old item that fell out of the bounded memory).
 */
export function takeNew(page: IDataObject[], seen: ReadonlySet<string>, newestArrival?: string): { fresh: IDataObject[]; stop: boolean } {
	const fresh: IDataObject[] = [];
	const watermark = newestArrival ? Date.parse(newestArrival) : Number.NaN;
	for (const item of page) {
		const id = String(item.id);
		const arrived = Date.parse(String(item.arrival_date ?? ''));
		if (seen.has(id) || (!Number.isNaN(watermark) && !Number.isNaN(arrived) && arrived < watermark)) return { fresh, stop: true };
		fresh.push(item);
	}
	return { fresh, stop: false };
}

/**
 * Pure: below the first seen item, the items not seen before are mail logged late (with an earlier
 * arrival date). Stops when `wanted` are found or at `floor`, the deepest remembered id (below it
 * an unseen id may just be old). Returns them (newest first), every id passed, and whether to stop.
 */
export function takeLate(page: IDataObject[], seen: ReadonlySet<string>, floor: string | undefined, wanted: number): { late: IDataObject[]; walked: string[]; done: boolean } {
	const late: IDataObject[] = [];
	const walked: string[] = [];
	for (const item of page) {
		const id = String(item.id);
		if (!seen.has(id)) {
			late.push(item);
			walked.push(id);
			if (late.length >= wanted) return { late, walked, done: true };
			continue;
		}
		walked.push(id);
		if (id === floor) return { late, walked, done: true };
	}
	return { late, walked, done: floor === undefined };
}

/** Pure: remember `ids` in front of `previous`, without repeats, at most `max`. */
export function remember(ids: string[], previous: string[] = [], max = MAX_SEEN): string[] {
	return [...new Set([...ids, ...previous])].slice(0, max);
}

/** Pure: scans pending last time that are no longer pending: their status changed. */
export function departed(before: Record<string, string> = {}, now: Record<string, string>): string[] {
	return Object.keys(before).filter((id) => !(id in now));
}
