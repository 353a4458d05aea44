import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import type { ApiContext } from './credentials';
import { eachPage, getPage, type Page } from './pages';
import { planParts, type SplitDimension } from './partition';
import type { RequestPool } from './pool';
import { addedFilters, partLabel, type Query } from './query';

export interface ConcurrentReadOptions {
	itemIndex?: number;
	pool: RequestPool;
	/** Filters to divide the query by; the user's own values are divided, never widened. */
	splits: readonly SplitDimension[];
	/** The query added to a part so it comes back in the same order as the whole (e.g. its sort). */
	splitQuery: Query;
	/** The query added to read a part from its other end (the reverse sort). */
	reverseQuery: Query;
	/** The API's order, total (ties broken), to merge the parts. */
	order: (a: IDataObject, b: IDataObject) => number;
	/** Splits a part that one query cannot reach from both ends (past 2 × the depth limit). */
	refine: (leaf: { query: Query; first: Page }) => Promise<Array<{ query: Query; first: Page }>>;
}

/** A read that does not add up: the list changed under it (or parts do not cover the whole). */
interface Changed {
	changed: string;
}

/** Pages one part needs before dividing the list pays for the extra first pages. */
const PAGES_PER_PART = 8;

/**
 * Return All of a list of more than one page, with up to `pool.max` requests in flight. The list
 * is divided into exclusive parts (planParts, sized from the first page), each part is read from
 * both ends at once (its sort and the reverse sort, meeting in the middle), and the parts are
 * merged back in the API's order. total_count is checked: the parts add up to the whole, and every
 * page of a part reports the part's first count. A list whose counts changed during the read is
 * read once more; a second change fails rather than return a list that may miss or repeat items.
 * Counts do not see one item leaving above the read position while another enters below it;
 * listPaginated's confirming second read is what catches that. A part
 * that fails fails the whole read, naming the part; no request is left running.
 */
export async function readConcurrently(ctx: ApiContext, path: string, query: Query, whole: Page, options: ConcurrentReadOptions): Promise<IDataObject[]> {
	const result = await readOnce(ctx, path, query, whole, options);
	if (!('changed' in result)) return result;
	const again = await readOnce(ctx, path, query, await getPage(ctx, path, query, PAGE_SIZE_MAX, undefined, options.itemIndex, { pool: options.pool }), options);
	if (!('changed' in again)) return again;
	throw new NodeOperationError(ctx.getNode(), `The list changed while it was being read, twice: ${again.changed}`, {
		itemIndex: options.itemIndex,
		description: 'Nothing was returned rather than a list that may miss or repeat items. Run the node again, or set Max Parallel Requests to 1.',
	});
}

async function readOnce(ctx: ApiContext, path: string, query: Query, first: Page, options: ConcurrentReadOptions): Promise<IDataObject[] | Changed> {
	const total = first.total_count;
	const pages = Math.ceil(total / PAGE_SIZE_MAX);
	const wanted = options.pool.max <= 2 ? 1 : Math.min(Math.ceil(options.pool.max / 2) + 2, Math.floor(pages / PAGES_PER_PART));
	const planned = wanted > 1 ? planParts(query, first.data, total, options.splits, wanted) : [];
	const stop = { failed: false };
	const read = async (part: Query, partFirst: Page | undefined, estimate: number) => {
		try {
			return await readPart(ctx, path, part, partFirst, estimate, options, stop);
		} catch (error) {
			stop.failed = true;
			throw planned.length > 1 ? namePart(error, part, query) : error;
		}
	};
	// The whole's first page only sized the parts: each part starts with its own first page.
	const parts = await settle(
		planned.length > 1 ? planned.map((part) => read({ ...part.query, ...options.splitQuery }, undefined, part.estimate)) : [read(query, first, total)],
	);
	const changed = parts.find((part): part is Changed => 'changed' in part);
	if (changed) return changed;
	const done = parts as Array<{ lists: IDataObject[][]; size: number }>;
	const sum = done.reduce((n, part) => n + part.size, 0);
	if (sum !== total) return { changed: `the parts by ${splitParams(query, planned.map((part) => part.query))} hold ${sum} items but the query matches ${total}` };
	const lists = done.flatMap((part) => part.lists);
	const items = lists.length === 1 ? lists[0] : merge(lists, options.order);
	const ids = new Set(items.map((item) => item.id));
	if (ids.size !== total || items.length !== total) return { changed: `${total} items matched when the read began, ${ids.size} different items were read` };
	return items;
}

/**
 * One part: its sort from the front, the reverse sort from the back, until the two meet. Without
 * `first`, the part's first page is asked for here; a part estimated at several pages starts its
 * back end at the same time (a round trip saved), a small one only once its size is known. A
 * part past what two ends can reach is divided (options.refine) and its pieces read the same way.
 */
async function readPart(
	ctx: ApiContext,
	path: string,
	query: Query,
	first: Page | undefined,
	estimate: number,
	options: ConcurrentReadOptions,
	stop: { failed: boolean },
): Promise<{ lists: IDataObject[][]; size: number } | Changed> {
	let size = first?.total_count;
	let firstPage = first;
	const state = { read: 0, claimed: 0 };
	// Pages asked for but not yet answered count as read, so the two ends never ask for the same items.
	const left = () => (size === undefined ? 0 : size - state.read - state.claimed);
	const tooDeep = () => size !== undefined && size > 2 * DEPTH_LIMIT;
	const slot = { pool: options.pool, priority: () => (size ?? estimate) - state.read };
	const totals: number[] = [];
	let sized: () => void = () => {};
	const whenSized = new Promise<void>((resolve) => (sized = resolve));

	const chain = async (chainQuery: Query, chainFirst: Page | undefined, speculative: boolean): Promise<IDataObject[]> => {
		const items: IDataObject[] = [];
		if (!chainFirst && !speculative && left() <= 0) return items;
		let claimed = !chainFirst;
		if (claimed) state.claimed += PAGE_SIZE_MAX;
		let completed = false;
		try {
			for await (const page of eachPage(ctx, path, chainQuery, { itemIndex: options.itemIndex, first: chainFirst, slot })) {
				if (claimed) state.claimed -= PAGE_SIZE_MAX;
				claimed = false;
				for (const item of page.data) items.push(item);
				state.read += page.data.length;
				totals.push(page.total_count);
				size ??= page.total_count;
				sized();
				if (stop.failed || tooDeep() || left() <= 0) break;
				state.claimed += PAGE_SIZE_MAX;
				claimed = true;
			}
			completed = true;
		} finally {
			if (!completed) stop.failed = true; // a failure: the other end and the other parts stop asking
			if (claimed) state.claimed -= PAGE_SIZE_MAX;
			sized();
		}
		return items;
	};
	const reverse = { ...query, ...options.reverseQuery };
	const frontRead = (async () => {
		if (firstPage) return await chain(query, firstPage, true);
		// The front's first page is kept: a part too deep to read is divided from it.
		state.claimed += PAGE_SIZE_MAX;
		const own = await getPage(ctx, path, query, PAGE_SIZE_MAX, undefined, options.itemIndex, slot).finally(() => (state.claimed -= PAGE_SIZE_MAX));
		firstPage = own;
		return await chain(query, own, true);
	})().finally(() => sized());
	const backRead = (async () => {
		if (size === undefined && estimate < 3 * PAGE_SIZE_MAX) await whenSized;
		return await chain(reverse, undefined, size === undefined);
	})();
	const [front, back] = await settle([frontRead, backRead]);

	if (tooDeep()) {
		const pieces = await options.refine({ query, first: firstPage! });
		const read = await settle(pieces.map(async (piece) => await readPart(ctx, path, piece.query, piece.first, piece.first.total_count, options, stop)));
		const changed = read.find((piece): piece is Changed => 'changed' in piece);
		if (changed) return changed;
		return { lists: (read as Array<{ lists: IDataObject[][] }>).flatMap((piece) => piece.lists), size: size! };
	}
	if (totals.some((count) => count !== size)) return { changed: `a part held ${size} items when the read began, then ${totals.find((count) => count !== size)}` };
	const seen = new Set(front.map((item) => item.id));
	for (let k = back.length - 1; k >= 0; k--) if (!seen.has(back[k].id)) front.push(back[k]);
	if (front.length !== size) return { changed: `a part of ${size} items gave ${front.length} when read from both ends` };
	return { lists: [front], size: size! };
}

/** Pure: merge lists each already in `order` into one list in `order` (stable: earlier lists first on ties). */
export function merge(lists: IDataObject[][], order: (a: IDataObject, b: IDataObject) => number): IDataObject[] {
	const out: IDataObject[] = [];
	const at = lists.map(() => 0);
	for (;;) {
		let best = -1;
		for (let k = 0; k < lists.length; k++) {
			if (at[k] < lists[k].length && (best < 0 || order(lists[k][at[k]], lists[best][at[best]]) < 0)) best = k;
		}
		if (best < 0) return out;
		out.push(lists[best][at[best]++]);
	}
}

/** Wait for every promise (no request keeps running after a failure), then throw the first failure. */
async function settle<T>(promises: Array<Promise<T>>): Promise<T[]> {
	const results = await Promise.allSettled(promises);
	const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
	if (failure) throw failure.reason;
	return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

function splitParams(whole: Query, parts: Query[]): string {
	return [...new Set(parts.flatMap((part) => addedFilters(part, whole)))].join(', ');
}

function namePart(error: unknown, part: Query, whole: Query): unknown {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.message = `${error.message} (while reading the part ${partLabel(part, whole)})`;
	}
	return error;
}
