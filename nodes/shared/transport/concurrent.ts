import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import type { ApiContext } from './credentials';
import { eachPage, getPage, type Leaf, type Page } from './pages';
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
	/** The reverse sort. */
	reverseQuery: Query;
	/** The API's order, total (ties broken), to merge the parts. */
	order: (a: IDataObject, b: IDataObject) => number;
	/** Splits a part that one query cannot reach from both ends (past 2 × the depth limit). */
	refine: (leaf: Leaf) => Promise<Leaf[] | Changed>;
}

/** A read that does not add up: the list changed under it, or its count is off (`listed`). */
export interface Changed {
	changed: string;
	listed?: Listed;
}

/** A complete undivided read whose pages all reported `count` but which listed other items. */
export interface Listed {
	items: IDataObject[];
	count: number;
}

/** Items of different parts that arrived at the same instant: their order in the API is unknown. */
interface Ties {
	ties: string;
}

/** Parts whose counts do not add up to the whole's: a change, or a division leaving items out. */
interface Mismatch {
	mismatch: string;
	sum: number;
	params: string[];
}

/** Pages one part needs before dividing the list pays for the extra first pages. */
const PAGES_PER_PART = 8;

/**
 * Return All of several pages with up to `pool.max` requests in flight: exclusive parts, each read
 * from both ends, merged back in the API's order; the counts must add up (docs/lists.md). A part
 * that fails fails the read, with no request left running. Filters that proved useless stay
 * dropped for the next read.
 */
export function concurrentReader(
	ctx: ApiContext,
	path: string,
	query: Query,
	options: ConcurrentReadOptions,
): (whole: Page) => Promise<IDataObject[] | Changed> {
	let splits = options.splits;
	return async (whole) => {
		for (;;) {
			const result = await readOnce(ctx, path, query, whole, { ...options, splits });
			if ('ties' in result) {
				// The spec leaves the order of same-instant items open: only an undivided read has it.
				splits = [];
			} else if ('mismatch' in result) {
				// A value no filter value selects, counts that are off, or items that moved: each round
				// drops a filter, so this ends undivided, where a change shows in the pages' counts.
				splits = splits.filter((split) => !result.params.includes(split.param));
			} else return result;
		}
	};
}

async function readOnce(
	ctx: ApiContext,
	path: string,
	query: Query,
	first: Page,
	options: ConcurrentReadOptions,
): Promise<IDataObject[] | Changed | Mismatch | Ties> {
	const total = first.total_count;
	const pages = Math.ceil(total / PAGE_SIZE_MAX);
	const wanted =
		options.pool.max <= 2
			? 1
			: Math.min(Math.ceil(options.pool.max / 2) + 2, Math.floor(pages / PAGES_PER_PART));
	const planned = wanted > 1 ? planParts(query, first.data, total, options.splits, wanted) : [];
	const stop = { failed: false };
	// Each part's count as soon as its first page answers: parts that cannot add up stop at once.
	const sizes: Array<number | undefined> = planned.map(() => undefined);
	// A divided read asks no part's other pages before every part's first page has answered: a
	// division that does not add up then costs one first page per part, nothing more.
	let allSized = () => {};
	const ready =
		planned.length > 1 ? new Promise<void>((resolve) => (allSized = resolve)) : Promise.resolve();
	const sized = (k: number, size: number) => {
		sizes[k] = size;
		if (planned.length > 1 && sizes.every((n) => n !== undefined)) {
			if (sizes.reduce((a, b) => a! + b!, 0) !== total) stop.failed = true;
			allSized();
		}
	};
	const read = async (part: Query, partFirst: Page | undefined, estimate: number, k: number) => {
		try {
			return await readPart(ctx, path, part, partFirst, estimate, options, stop, ready, (size) =>
				sized(k, size),
			);
		} catch (error) {
			stop.failed = true;
			allSized();
			throw planned.length > 1 ? namePart(error, part, query) : error;
		}
	};
	// The whole's first page only sized the parts: each part starts with its own first page.
	const parts = await settle(
		planned.length > 1
			? planned.map((part, k) =>
					read({ ...part.query, ...options.splitQuery }, undefined, part.estimate, k),
				)
			: [read(query, first, total, 0)],
	);
	if (planned.length > 1 && sizes.every((n) => n !== undefined)) {
		const sum = sizes.reduce((a, b) => a! + b!, 0)!;
		const params = [...new Set(planned.flatMap((part) => addedFilters(part.query, query)))];
		if (sum !== total)
			return {
				mismatch: `the parts by ${params.join(', ')} hold ${sum} items but the query matches ${total}`,
				params,
				sum,
			};
	}
	const changed = parts.find((part): part is Changed => 'changed' in part);
	if (changed) return planned.length > 1 ? { changed: changed.changed } : changed;
	const done = parts as Array<{ lists: IDataObject[][]; size: number }>;
	const lists = done.flatMap((part) => part.lists);
	const tied = { at: undefined as IDataObject | undefined };
	const items =
		lists.length === 1 ? lists[0] : merge(lists, options.order, (item) => (tied.at ??= item));
	if (tied.at && total <= 2 * DEPTH_LIMIT)
		return { ties: `items of different parts arrived at the same instant (${String(tied.at.id)})` };
	const ids = new Set(items.map((item) => item.id));
	if (ids.size !== total || items.length !== total)
		return {
			changed: `${total} items matched when the read began, ${ids.size} different items were read`,
			// Read undivided, no item twice: what the list held, should its count be what is off.
			...(lists.length === 1 && ids.size === items.length
				? { listed: { items, count: total } }
				: {}),
		};
	return items;
}

/**
 * One part from both ends until they meet. A part estimated at several pages starts its back end
 * with its first page (a round trip saved), a small one once its size is known.
 */
async function readPart(
	ctx: ApiContext,
	path: string,
	query: Query,
	first: Page | undefined,
	estimate: number,
	options: ConcurrentReadOptions,
	stop: { failed: boolean },
	ready: Promise<void>,
	onSized: (size: number) => void = () => {},
): Promise<{ lists: IDataObject[][]; size: number } | Changed> {
	let size = first?.total_count;
	if (size !== undefined) onSized(size);
	let firstPage = first;
	const state = { read: 0, claimed: 0 };
	// Pages asked for and not yet answered count as read: the two ends never ask for the same items.
	const left = () => (size === undefined ? 0 : size - state.read - state.claimed);
	const tooDeep = () => size !== undefined && size > 2 * DEPTH_LIMIT;
	// A part's first page goes first: its count shows a division that does not add up.
	const slot = {
		pool: options.pool,
		priority: () => (size === undefined ? Number.MAX_SAFE_INTEGER : size - state.read),
	};
	const totals: number[] = [];
	let sized: () => void = () => {};
	const whenSized = new Promise<void>((resolve) => (sized = resolve));

	const chain = async (
		chainQuery: Query,
		chainFirst: Page | undefined,
		speculative: boolean,
	): Promise<{ items: IDataObject[]; last?: Page }> => {
		const items: IDataObject[] = [];
		let last: Page | undefined;
		if (stop.failed || (!chainFirst && !speculative && left() <= 0)) return { items };
		let claimed = !chainFirst;
		if (claimed) state.claimed += PAGE_SIZE_MAX;
		let completed = false;
		try {
			for await (const page of eachPage(ctx, path, chainQuery, {
				itemIndex: options.itemIndex,
				first: chainFirst,
				slot,
			})) {
				if (claimed) state.claimed -= PAGE_SIZE_MAX;
				claimed = false;
				for (const item of page.data) items.push(item);
				last = page;
				state.read += page.data.length;
				totals.push(page.total_count);
				if (size === undefined) {
					size = page.total_count;
					onSized(size);
				}
				sized();
				if (stop.failed || tooDeep() || left() <= 0) break;
				await ready;
				if (stop.failed || left() <= 0) break;
				state.claimed += PAGE_SIZE_MAX;
				claimed = true;
			}
			completed = true;
		} finally {
			if (!completed) stop.failed = true; // the other end and the other parts stop asking
			if (claimed) state.claimed -= PAGE_SIZE_MAX;
			sized();
		}
		return { items, last };
	};
	const reverse = { ...query, ...options.reverseQuery };
	const frontRead = (async () => {
		if (firstPage) return await chain(query, firstPage, true);
		// The front's first page is kept: a part too deep to read is divided from it.
		state.claimed += PAGE_SIZE_MAX;
		const own = await getPage(
			ctx,
			path,
			query,
			PAGE_SIZE_MAX,
			undefined,
			options.itemIndex,
			slot,
		).finally(() => (state.claimed -= PAGE_SIZE_MAX));
		firstPage = own;
		return await chain(query, own, true);
	})().finally(() => sized());
	const backRead = (async () => {
		await ready;
		if (size === undefined && estimate < 3 * PAGE_SIZE_MAX) await whenSized;
		return await chain(reverse, undefined, size === undefined);
	})();
	const [front, back] = await settle([frontRead, backRead]);
	// Another part's count or failure ended the read.
	if (stop.failed) return { changed: 'the read was stopped' };

	if (tooDeep()) {
		const pieces = await options.refine({ query, first: firstPage! });
		if (!Array.isArray(pieces)) return pieces;
		const read = await settle(
			pieces.map(
				async (piece) =>
					await readPart(
						ctx,
						path,
						piece.query,
						piece.first,
						piece.first.total_count,
						options,
						stop,
						Promise.resolve(),
					),
			),
		);
		const changed = read.find((piece): piece is Changed => 'changed' in piece);
		if (changed) return changed;
		return {
			lists: (read as Array<{ lists: IDataObject[][] }>).flatMap((piece) => piece.lists),
			size: size!,
		};
	}
	if (totals.some((count) => count !== size))
		return {
			changed:
				`a part held ${size} items when the read began, ` +
				`then ${totals.find((count) => count !== size)}`,
		};
	const seen = new Set(front.items.map((item) => item.id));
	const rest = back.items.filter((item) => !seen.has(item.id)).reverse();
	// The reverse sort mirrors the sort only where arrival dates differ (the spec says nothing of
	// ties): items of the back read arriving at the same instant, or ends that do not add up, are
	// read on from the front instead, one page after another, in the API's own order.
	// Ends that neither overlap nor reach the list's end met only by the count: a count smaller than
	// the list would leave items between them unread. One page more shows whether they touch.
	let met = rest.length < back.items.length || !front.last?.next_cursor || !back.last?.next_cursor;
	if (!met && front.items.length + rest.length === size) {
		const next = await getPage(
			ctx,
			path,
			query,
			PAGE_SIZE_MAX,
			front.last!.next_cursor!,
			options.itemIndex,
			slot,
		);
		met = next.data[0]?.id === rest[0]?.id && next.total_count === size;
	}
	const unsure =
		!met ||
		front.items.length + rest.length !== size ||
		rest.some((item, k) => k > 0 && options.order(rest[k - 1], item) === 0);
	if (!unsure) return { lists: [[...front.items, ...rest]], size: size! };
	if (size! > DEPTH_LIMIT) {
		// Past what one direction reaches: the ends must add up; same-instant items of the back read
		// keep the reverse sort's order reversed.
		if (front.items.length + rest.length !== size)
			return {
				changed:
					`a part of ${size} items gave ${front.items.length + rest.length} when read from ` +
					'both ends',
			};
		return { lists: [[...front.items, ...rest]], size: size! };
	}
	const items = front.items;
	for await (const page of eachPage(ctx, path, query, {
		itemIndex: options.itemIndex,
		first: front.last,
		slot,
	})) {
		if (page === front.last) continue;
		if (page.total_count !== size)
			return { changed: `a part held ${size} items when the read began, then ${page.total_count}` };
		items.push(...page.data);
	}
	const distinct = new Set(items.map((item) => item.id)).size;
	if (distinct !== size || items.length !== size)
		return {
			changed: `a part of ${size} items gave ${items.length} when read from the front`,
			...(distinct === items.length ? { listed: { items, count: size! } } : {}),
		};
	return { lists: [items], size: size! };
}

/** Pure: stable (earlier lists first on ties); `onTie` hears of ties, whose order is unknown. */
export function merge(
	lists: IDataObject[][],
	order: (a: IDataObject, b: IDataObject) => number,
	onTie: (item: IDataObject) => void = () => {},
): IDataObject[] {
	const out: IDataObject[] = [];
	const at = lists.map(() => 0);
	for (;;) {
		let best = -1;
		for (let k = 0; k < lists.length; k++) {
			if (
				at[k] < lists[k].length &&
				(best < 0 || order(lists[k][at[k]], lists[best][at[best]]) < 0)
			)
				best = k;
		}
		if (best < 0) return out;
		for (let k = best + 1; k < lists.length; k++)
			if (at[k] < lists[k].length && order(lists[k][at[k]], lists[best][at[best]]) === 0)
				onTie(lists[best][at[best]]);
		out.push(lists[best][at[best]++]);
	}
}

/** Waits for every promise (no request left running after a failure), then throws the first. */
async function settle<T>(promises: Array<Promise<T>>): Promise<T[]> {
	const results = await Promise.allSettled(promises);
	const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
	if (failure) throw failure.reason;
	return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

function namePart(error: unknown, part: Query, whole: Query): unknown {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.message = `${error.message} (while reading the part ${partLabel(part, whole)})`;
	}
	return error;
}
