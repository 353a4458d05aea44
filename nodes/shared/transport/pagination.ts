import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import { partLabel, type Query } from './query';
import type { ApiContext } from './credentials';
import {
	CHANGED_ADVICE,
	countIsOff,
	type Listed,
	readConcurrently,
	sameListing,
} from './concurrent';
import { divideQuery, type SplitDimension } from './partition';
import { RequestPool } from './pool';
import { eachPage, getPage, type Page } from './pages';

export interface ListOptions {
	returnAll: boolean;
	limit: number;
	itemIndex?: number;
	/** Partitions tried in order when more items match than one query can reach. */
	splits?: readonly SplitDimension[];
	/** Which filters the user can narrow with, for the depth-limit error. */
	narrowHint?: string;
	/** The API's order, total (ties broken), to merge results after a split. */
	order?: (a: IDataObject, b: IDataObject) => number;
	/** Added to each part's query after a split, so every part comes back in one known order. */
	splitQuery?: Query;
	/** Added to a query to read it from its other end (the reverse sort); lists without one are read from the front only. */
	reverseQuery?: Query;
	/** Requests in flight at most for Return All (1: one page after another). */
	maxParallel?: number;
	/** Return All: read a list of more than one page again and return it only when both reads agree. */
	confirmUnchanged?: boolean;
}

interface Leaf {
	query: Query;
	first: Page;
}

/**
 * Read a cursor-paginated list, once. Return All asks 100 per page; Limit asks min(limit, 100) and keeps
 * the same page size on every page (the cursor is bound to the query). Guards: stops on a null
 * cursor, fails on a repeated cursor or a runaway page count. When more items match than
 * pagination can reach (10,000), the query is split into exclusive parts that each fit, the parts'
 * total_count must add up to the whole's, and results are merged without duplicates; when no split
 * reaches every item, it fails before fetching and says how many exist and how many are reachable.
 * Return All with `maxParallel` above 1 on a list that can be read from its other end goes to
 * readConcurrently (concurrent.ts) once the first page shows there is more than one.
 * `confirmUnchanged` (the Confirm List Unchanged option) adds a second read, see below.
 */
export async function listPaginated(
	this: ApiContext,
	path: string,
	query: Query,
	options: ListOptions,
): Promise<IDataObject[]> {
	const shape = { severalPages: false };
	const items = await readList.call(this, path, query, options, shape);
	// A list that came in one request (one page, full or not) has no page boundary to slip across.
	if (!options.returnAll || !options.confirmUnchanged || !shape.severalPages) return items;
	// The counts cannot see every change: with the API's position-counting cursors, one item leaving
	// above the read position and another entering below it leave every total_count as it was, and
	// the item pushed across a page boundary is missed. So a list read in several requests is read
	// again, and returned only when two reads in a row give the same items in the same order. That
	// catches such a change unless an opposite change undoes it before the second read reaches the
	// spot: it is a check, not a proof.
	let previous = items;
	for (let read = 2; read <= 3; read++) {
		const again = await readList.call(this, path, query, options);
		if (sameItems(previous, again)) return again;
		previous = again;
	}
	throw new NodeOperationError(
		this.getNode(),
		'The list changed while it was being read: three reads in a row gave different items',
		{
			itemIndex: options.itemIndex,
			description:
				'Confirm List Unchanged is on: nothing was returned rather than a list that may miss or repeat items. Run the node again when the mailbox is quieter, or narrow the query.',
		},
	);
}

/** Pure: the same items (by id) in the same order. */
export function sameItems(a: IDataObject[], b: IDataObject[]): boolean {
	return a.length === b.length && a.every((item, k) => item.id === b[k].id);
}

/** `shape.severalPages` is set when the first page shows the list takes more than one request. */
async function readList(
	this: ApiContext,
	path: string,
	query: Query,
	options: ListOptions,
	shape = { severalPages: false },
): Promise<IDataObject[]> {
	const max = options.returnAll ? Number.POSITIVE_INFINITY : Math.max(1, options.limit);
	const pageSize = Math.min(PAGE_SIZE_MAX, max);
	const parallel =
		options.returnAll && (options.maxParallel ?? 1) > 1 && options.reverseQuery && options.order;
	const pool = parallel ? new RequestPool(options.maxParallel!) : undefined;
	const first = await getPage(this, path, query, pageSize, undefined, options.itemIndex, { pool });
	shape.severalPages = first.next_cursor !== null || first.total_count > pageSize;
	if (pool && first.next_cursor) {
		return await readConcurrently(this, path, query, first, {
			itemIndex: options.itemIndex,
			pool,
			splits: options.splits ?? [],
			splitQuery: options.splitQuery ?? {},
			reverseQuery: options.reverseQuery!,
			order: options.order!,
			refine: async (leaf) => {
				const leaves = await planSplit(this, path, leaf, options, 0, 2 * DEPTH_LIMIT);
				if (leaves.some((part) => part.first.total_count > 2 * DEPTH_LIMIT))
					throw unreachableError(this, leaf.first, leaves, options, 2 * DEPTH_LIMIT);
				return leaves;
			},
		});
	}

	// One page after another. total_count is checked as in a parallel read: every page of a query
	// (or part) must report its first page's count, and parts must add up to the whole. A change is
	// read once more from the start (no request more while the list stays the same); a second fails.
	// A count off the same way in two reads in a row is the API's, not a change (as in a parallel read).
	for (let changes = 0, whole = first, previous: Listed | undefined; ; ) {
		const read = await readInOrder(this, path, query, whole, pageSize, max, options).catch(
			changedOrThrow,
		);
		if (Array.isArray(read)) return read;
		if (sameListing(previous, read.listed)) return countIsOff(this, path, read.listed!);
		previous = read.listed;
		if (++changes === 2) {
			throw new NodeOperationError(
				this.getNode(),
				`The list changed while it was being read, twice: ${read.message}`,
				{
					itemIndex: options.itemIndex,
					description: CHANGED_ADVICE,
				},
			);
		}
		whole = await getPage(this, path, query, pageSize, undefined, options.itemIndex);
	}
}

/** A count that changed during a read one page after another (caught and read again once). */
class ListChanged extends Error {
	/** A complete read whose pages all agreed on a count the items listed do not match. */
	constructor(
		message: string,
		readonly listed?: Listed,
	) {
		super(message);
	}
}

/** A ListChanged is the read's answer; any other failure stays one. */
function changedOrThrow(error: unknown): ListChanged {
	if (error instanceof ListChanged) return error;
	throw error;
}

/**
 * One read, one page after another. Past the depth limit the query is divided into parts that each
 * fit, and the parts are merged as they are read, page by page: a Limit stops once it has its
 * items in order, so it reads about ⌈Limit/100⌉ pages plus one first page per part.
 */
async function readInOrder(
	ctx: ApiContext,
	path: string,
	query: Query,
	first: Page,
	pageSize: number,
	max: number,
	options: ListOptions,
): Promise<IDataObject[]> {
	if (first.total_count <= DEPTH_LIMIT || max <= DEPTH_LIMIT) {
		const items = await mergeParts(ctx, path, query, [{ query, first }], pageSize, max, options);
		// Every page reported the first page's count (mergeParts checks): the items must match it.
		if (!Number.isFinite(max) && items.length !== first.total_count)
			throw new ListChanged(
				`${first.total_count} items matched when the read began, ${items.length} different items were read`,
				{ items, count: first.total_count },
			);
		return items;
	}
	const leaves = await planSplit(ctx, path, { query, first }, options, 0, DEPTH_LIMIT);
	if (leaves.some((leaf) => leaf.first.total_count > DEPTH_LIMIT))
		throw unreachableError(ctx, first, leaves, options, DEPTH_LIMIT);
	const items = await mergeParts(ctx, path, query, leaves, PAGE_SIZE_MAX, max, options);
	if (!Number.isFinite(max) && items.length !== first.total_count) {
		throw new ListChanged(
			`${first.total_count} items matched when the read began, ${items.length} different items were read`,
		);
	}
	return items;
}

/**
 * Pages of each part, merged in `options.order` as they come (the part listed first wins a tie, so
 * one part keeps the API's own order). A part's next page is asked for only when the merge needs
 * its next item. Without an order the parts come one after another.
 */
async function mergeParts(
	ctx: ApiContext,
	path: string,
	whole: Query,
	leaves: Leaf[],
	pageSize: number,
	max: number,
	options: ListOptions,
): Promise<IDataObject[]> {
	const order = options.order ?? (() => 0);
	const out = new Collector(max);
	const heads = leaves.map((leaf) => ({
		leaf,
		pages: eachPage(ctx, path, leaf.query, {
			pageSize,
			itemIndex: options.itemIndex,
			first: leaf.first,
		}),
		buffer: [] as IDataObject[],
		read: 0,
		done: false,
	}));
	const fill = async (head: (typeof heads)[number]) => {
		while (head.buffer.length === 0 && !head.done) {
			const next = await head.pages.next();
			if (next.done) {
				head.done = true;
				// An item that moved between parts mid-read would otherwise be missed or read twice.
				if (leaves.length > 1 && head.read !== head.leaf.first.total_count) {
					throw new ListChanged(
						`the part ${partLabel(head.leaf.query, whole)} held ${head.leaf.first.total_count} items when the read began, ${head.read} were read`,
					);
				}
				return;
			}
			const page = next.value;
			if (page.total_count !== head.leaf.first.total_count) {
				throw new ListChanged(
					leaves.length > 1
						? `the part ${partLabel(head.leaf.query, whole)} held ${head.leaf.first.total_count} items when the read began, then ${page.total_count}`
						: `${head.leaf.first.total_count} items matched when the read began, then ${page.total_count}`,
				);
			}
			head.buffer.push(...page.data);
			head.read += page.data.length;
		}
	};
	while (!out.full) {
		let best: (typeof heads)[number] | undefined;
		for (const head of heads) {
			await fill(head);
			if (head.buffer.length > 0 && (!best || order(head.buffer[0], best.buffer[0]) < 0))
				best = head;
		}
		if (!best) break;
		out.add([best.buffer.shift()!]);
	}
	return out.items;
}

/** The depth limit leaves items out whatever the split: fail before fetching, with the counts. */
function unreachableError(
	ctx: ApiContext,
	whole: Page,
	leaves: Leaf[],
	options: ListOptions,
	reach: number,
): NodeOperationError {
	const reachable = leaves.reduce((sum, leaf) => sum + Math.min(leaf.first.total_count, reach), 0);
	const tried = (options.splits ?? []).map((s) => s.param).join(', ');
	return new NodeOperationError(
		ctx.getNode(),
		`${whole.total_count} items match, but only ${reachable} can be reached: the API pages through at most ${reach} items per query${reach > DEPTH_LIMIT ? ' read from both ends' : ''}${tried ? ` and splitting by ${tried} still leaves parts over that limit` : ''}`,
		{
			itemIndex: options.itemIndex,
			description: `Narrow the query${options.narrowHint ? ` with ${options.narrowHint}` : ''} so that fewer than ${reach} items match, or run the node once per narrower query.`,
		},
	);
}

/**
 * Probe each part's first page (it doubles as the part's first data page) and recurse until every
 * part holds at most `reach` items (what one query can page through). Parts that do not add up to
 * the whole while the whole's count stayed the same leave items out (an item whose value no filter
 * value selects): the next filter is tried instead. A whole whose count changed fails.
 */
async function planSplit(
	ctx: ApiContext,
	path: string,
	whole: Leaf,
	options: ListOptions,
	from: number,
	reach: number,
): Promise<Leaf[]> {
	if (whole.first.total_count <= reach) return [whole];
	for (
		let division = divideQuery(whole.query, options.splits ?? [], from);
		division;
		division = divideQuery(whole.query, options.splits ?? [], division.next)
	) {
		const parts: Leaf[] = [];
		for (const part of division.parts) {
			const query: Query = { ...part, ...options.splitQuery };
			parts.push({
				query,
				first: await getPage(ctx, path, query, PAGE_SIZE_MAX, undefined, options.itemIndex),
			});
		}
		const sum = parts.reduce((total, part) => total + part.first.total_count, 0);
		if (sum !== whole.first.total_count) {
			const again = await getPage(
				ctx,
				path,
				whole.query,
				PAGE_SIZE_MAX,
				undefined,
				options.itemIndex,
			);
			if (again.total_count === whole.first.total_count) continue;
			throw new ListChanged(
				`${whole.first.total_count} items matched when the read began, then ${again.total_count}`,
			);
		}
		const leaves: Leaf[] = [];
		for (const part of parts)
			leaves.push(...(await planSplit(ctx, path, part, options, division.next, reach)));
		return leaves;
	}
	return [whole];
}

/** Keeps results in arrival order, drops repeats by id, and knows when it has enough. */
class Collector {
	readonly items: IDataObject[] = [];

	private readonly ids = new Set<unknown>();

	constructor(private readonly max: number) {}

	get full(): boolean {
		return this.items.length >= this.max;
	}

	add(batch: IDataObject[]): void {
		for (const item of batch) {
			if (this.full) return;
			const id = item?.id;
			if (id !== undefined) {
				if (this.ids.has(id)) continue;
				this.ids.add(id);
			}
			this.items.push(item);
		}
	}
}
