import type { IDataObject } from 'n8n-workflow';

import { LATE_WINDOW_MS, MAX_EMIT_PER_POLL, MAX_REMEMBERED } from './limits';

/**
 * New Mail's decisions, pure. A mail item's order key is [arrival ms, numeric id]: the order of
 * `sort=newest` (the API's ties assumed by id, docs/api.md), compared as a pair.
 */
export type OrderKey = [number, number];

/** The id the window's part of the floor carries: below every item that arrived at that instant. */
const BEFORE_ANY_ID = -1;

export function orderKeyOf(item: IDataObject): OrderKey {
	return [Date.parse(String(item.arrival_date ?? '')) || 0, Number(item.id) || 0];
}

export function compareKeys(a: OrderKey, b: OrderKey): number {
	return a[0] - b[0] || a[1] - b[1];
}

export function isAboveFloor(key: OrderKey, floor: OrderKey | undefined): boolean {
	return floor === undefined || compareKeys(key, floor) > 0;
}

/**
 * The floor after `recorded` changed: the highest of the previous floor, the newest recorded
 * arrival less LATE_WINDOW, and the key of the MAX_REMEMBERED-th newest recorded item. Never lower
 * than before.
 */
export function raiseFloor(floor: OrderKey | undefined, recorded: Record<string, number>): OrderKey | undefined {
	const keys = Object.entries(recorded)
		.map(([id, arrival]): OrderKey => [arrival, Number(id) || 0])
		.sort((a, b) => compareKeys(b, a));
	const candidates: OrderKey[] = floor ? [floor] : [];
	if (keys.length > 0) candidates.push([keys[0][0] - LATE_WINDOW_MS, BEFORE_ANY_ID]);
	if (keys.length >= MAX_REMEMBERED) candidates.push(keys[MAX_REMEMBERED - 1]);
	return candidates.reduce<OrderKey | undefined>((high, key) => (high === undefined || compareKeys(key, high) > 0 ? key : high), undefined);
}

/** `recorded` plus `items`, then the floor raised and the ids at or below it forgotten. */
export function recordItems(floor: OrderKey | undefined, recorded: Record<string, number>, items: IDataObject[]): { floor?: OrderKey; recorded: Record<string, number> } {
	const all = { ...recorded };
	for (const item of items) all[String(item.id)] = orderKeyOf(item)[0];
	const raised = raiseFloor(floor, all);
	const kept: Record<string, number> = {};
	for (const [id, arrival] of Object.entries(all)) if (isAboveFloor([arrival, Number(id) || 0], raised)) kept[id] = arrival;
	return { floor: raised, recorded: kept };
}

/**
 * New mail among the items a poll listed: above the floor and not recorded, each id once, oldest
 * first. The first MAX_EMIT_PER_POLL are emitted now; the rest are new mail for the next polls.
 */
export function selectNew(listed: Iterable<IDataObject>, floor: OrderKey | undefined, recorded: Record<string, number>): { emit: IDataObject[]; waiting: number } {
	const fresh = new Map<string, IDataObject>();
	for (const item of listed) {
		const id = String(item.id);
		if (!(id in recorded) && isAboveFloor(orderKeyOf(item), floor)) fresh.set(id, item);
	}
	const oldestFirst = [...fresh.values()].sort((a, b) => compareKeys(orderKeyOf(a), orderKeyOf(b)));
	return { emit: oldestFirst.slice(0, MAX_EMIT_PER_POLL), waiting: Math.max(0, oldestFirst.length - MAX_EMIT_PER_POLL) };
}

/**
 * Priming reads the whole mailbox newest first down to here: an item more than LATE_WINDOW older
 * than the newest one, or past the MAX_REMEMBERED newest (what the floor would forget at once).
 */
export function primingDone(read: IDataObject[]): boolean {
	if (read.length >= MAX_REMEMBERED) return true;
	const newest = read[0] ? orderKeyOf(read[0])[0] : undefined;
	const last = read.at(-1);
	return newest !== undefined && last !== undefined && orderKeyOf(last)[0] < newest - LATE_WINDOW_MS;
}
