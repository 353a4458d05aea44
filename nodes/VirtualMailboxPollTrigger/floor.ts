import type { IDataObject } from 'n8n-workflow';

import { LATE_WINDOW_MS, MAX_EMIT_PER_POLL, MAX_REMEMBERED } from './limits';

/**
 * New Mail's decisions, pure. A mail item's order key is [arrival ms, numeric id]: the order of
 * `sort=newest` (the API's ties assumed by id, docs/api.md), compared as a pair.
 */
export type OrderKey = [number, number];

/** The id the window's part of the floor carries: below every item that arrived at that instant. */
const BEFORE_ANY_ID = -1;

/** An arrival date may be null in the API: such an item has no key and is skipped. */
export function orderKeyOf(item: IDataObject): OrderKey | undefined {
	const arrival = Date.parse(String(item.arrival_date ?? ''));
	return Number.isNaN(arrival) ? undefined : [arrival, Number(item.id) || 0];
}

export function compareKeys(a: OrderKey, b: OrderKey): number {
	return a[0] - b[0] || a[1] - b[1];
}

export function isAboveFloor(key: OrderKey, floor: OrderKey | undefined): boolean {
	return floor === undefined || compareKeys(key, floor) > 0;
}

function highest(keys: Array<OrderKey | undefined>): OrderKey | undefined {
	return keys.reduce<OrderKey | undefined>(
		(high, key) => (key && (high === undefined || compareKeys(key, high) > 0) ? key : high),
		undefined,
	);
}

function newestFirst(recorded: Record<string, number>): OrderKey[] {
	return Object.entries(recorded)
		.map(([id, arrival]): OrderKey => [arrival, Number(id) || 0])
		.sort((a, b) => compareKeys(b, a));
}

export function rememberedKey(recorded: Record<string, number>): OrderKey | undefined {
	return newestFirst(recorded)[MAX_REMEMBERED - 1];
}

/** Never lower than before. */
export function raiseFloor(
	floor: OrderKey | undefined,
	recorded: Record<string, number>,
	remembered?: OrderKey,
): OrderKey | undefined {
	const newest = newestFirst(recorded)[0];
	return highest([floor, newest && [newest[0] - LATE_WINDOW_MS, BEFORE_ANY_ID], remembered]);
}

export interface FloorState {
	floor?: OrderKey;
	/** The MAX_REMEMBERED-th newest recorded item when the last poll ended: the floor's next step. */
	remembered?: OrderKey;
	recorded: Record<string, number>;
}

/**
 * The MAX_REMEMBERED part of the floor lags one poll, so that an item a moving list hid from a
 * poll that emitted 1,000 newer ones is still above the floor for the next. Priming (`atOnce`)
 * applies it at once.
 */
export function recordItems(
	state: FloorState,
	items: IDataObject[],
	{ past, atOnce = false }: { past?: OrderKey; atOnce?: boolean } = {},
): Required<Pick<FloorState, 'recorded'>> & FloorState {
	const all = { ...state.recorded };
	for (const item of items) {
		const key = orderKeyOf(item);
		if (key) all[String(item.id)] = key[0];
	}
	const remembered = rememberedKey(all);
	const floor = highest([
		raiseFloor(state.floor, all, atOnce ? remembered : state.remembered),
		past,
	]);
	const kept: Record<string, number> = {};
	for (const [id, arrival] of Object.entries(all))
		if (isAboveFloor([arrival, Number(id) || 0], floor)) kept[id] = arrival;
	return { floor, remembered, recorded: kept };
}

/** Oldest first; past MAX_EMIT_PER_POLL the rest wait for the next polls. */
export function selectNew(
	listed: Iterable<IDataObject>,
	floor: OrderKey | undefined,
	recorded: Record<string, number>,
): { emit: IDataObject[]; waiting: number; oldestWaiting?: OrderKey } {
	const fresh = new Map<string, { item: IDataObject; key: OrderKey }>();
	for (const item of listed) {
		const id = String(item.id);
		const key = orderKeyOf(item);
		if (key && !(id in recorded) && isAboveFloor(key, floor)) fresh.set(id, { item, key });
	}
	const oldestFirst = [...fresh.values()].sort((a, b) => compareKeys(a.key, b.key));
	const emit = oldestFirst.slice(0, MAX_EMIT_PER_POLL).map(({ item }) => item);
	return {
		emit,
		waiting: oldestFirst.length - emit.length,
		oldestWaiting: oldestFirst[emit.length]?.key,
	};
}

/** Priming reads newest first down to what the floor would forget at once. */
export function primingDone(read: OrderKey[]): boolean {
	if (read.length >= MAX_REMEMBERED) return true;
	return read.length > 0 && read.at(-1)![0] < read[0][0] - LATE_WINDOW_MS;
}
