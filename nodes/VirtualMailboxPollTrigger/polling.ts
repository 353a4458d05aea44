import type { IDataObject } from 'n8n-workflow';

/** What the poll trigger remembers between polls (workflow static data), bounded in size. */
export interface PollState extends IDataObject {
	primed?: boolean;
	/** New mail: ids of the newest items already emitted or seen, newest first. */
	seenIds?: string[];
	/** New mail: arrival time of the newest item seen; anything older is not new. */
	newestArrival?: string;
	/** Scans: pending (in process or restoring) scan id → mail id, as of the last poll. */
	pending?: Record<string, string>;
	/** Scans: ids of completions already emitted. */
	emitted?: string[];
}

export const MAX_SEEN = 1_000;
export const MAX_PENDING = 5_000;

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

/** Pure: remember `ids` in front of `previous`, without repeats, at most `max`. */
export function remember(ids: string[], previous: string[] = [], max = MAX_SEEN): string[] {
	return [...new Set([...ids, ...previous])].slice(0, max);
}

/** Pure: scans pending last time that are no longer pending: their status changed. */
export function departed(before: Record<string, string> = {}, now: Record<string, string>): string[] {
	return Object.keys(before).filter((id) => !(id in now));
}
