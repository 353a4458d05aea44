import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import { partLabel, type Query } from './query';
import type { ApiContext } from './credentials';
import { type Changed, concurrentReader, type Listed } from './concurrent';
import { divideQuery, type SplitDimension } from './partition';
import { RequestPool } from './pool';
import { eachPage, getPage, type Leaf, type Page } from './pages';

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
	/** Added to each part's query after a split, so every part comes in one known order. */
	splitQuery?: Query;
	/** Added to a query to read it from its other end (the reverse sort); else front only. */
	reverseQuery?: Query;
	/** Requests in flight at most for Return All (1: one page after another). */
	maxParallel?: number;
	/** Return All: read a list of several pages again; return it only when two reads agree. */
	confirmUnchanged?: boolean;
}

/** What to do about a list that kept changing: true whatever the read's settings. */
const CHANGED_ADVICE =
	'Nothing was returned rather than a list that may miss or repeat ' +
	'items. Run the node again when the mailbox is quieter, or narrow the ' +
	'query (for example with Arrived) so that the read takes fewer pages.';

/**
 * Reads a cursor-paginated list; a Limit asks min(limit, 100) on every page, since the cursor is
 * bound to the query. Past the depth limit the query is split into parts whose counts must add up
 * to the whole's; with no split reaching every item it fails before fetching. See docs/lists.md.
 */
export async function listPaginated(
	this: ApiContext,
	path: string,
	query: Query,
	options: ListOptions,
): Promise<IDataObject[]> {
	const { items, severalPages } = await readList.call(this, path, query, options);
	if (!options.returnAll || !options.confirmUnchanged || !severalPages) return items;
	// The counts cannot see one item leaving above the read position while another enters below it
	// (the API's cursors count positions): a check, not a proof, that two reads in a row agree.
	let previous = items;
	for (let read = 2; read <= 3; read++) {
		const { items: again } = await readList.call(this, path, query, options);
		if (sameItems(previous, again)) return again;
		previous = again;
	}
	throw new NodeOperationError(
		this.getNode(),
		'The list changed while it was being read: three reads in a row gave different items',
		{
			itemIndex: options.itemIndex,
			description:
				'Confirm List Unchanged is on: nothing was returned rather than a list that may miss ' +
				'or repeat items. Run the node again when the mailbox is quieter, or narrow the query.',
		},
	);
}

export function sameItems(a: IDataObject[], b: IDataObject[]): boolean {
	return a.length === b.length && a.every((item, k) => item.id === b[k].id);
}

/**
 * Every list read goes through this loop: a read that does not add up is read once more, and a
 * second fails rather than return a list that may miss or repeat items. Two reads listing the
 * same items under the same count are the API's count being off, not a change.
 */
async function readList(
	this: ApiContext,
	path: string,
	query: Query,
	options: ListOptions,
): Promise<{ items: IDataObject[]; severalPages: boolean }> {
	const max = options.returnAll ? Number.POSITIVE_INFINITY : Math.max(1, options.limit);
	const pageSize = Math.min(PAGE_SIZE_MAX, max);
	const parallel =
		options.returnAll && (options.maxParallel ?? 1) > 1 && options.reverseQuery && options.order;
	const pool = parallel ? new RequestPool(options.maxParallel!) : undefined;
	const firstPage = async () =>
		await getPage(this, path, query, pageSize, undefined, options.itemIndex, { pool });
	let first = await firstPage();
	const severalPages = first.next_cursor !== null || first.total_count > pageSize;
	const readOnce =
		pool && first.next_cursor
			? concurrentReader(this, path, query, {
					itemIndex: options.itemIndex,
					pool,
					splits: options.splits ?? [],
					splitQuery: options.splitQuery ?? {},
					reverseQuery: options.reverseQuery!,
					order: options.order!,
					refine: async (leaf) => await splitWithin(this, path, leaf, options, 2 * DEPTH_LIMIT),
				})
			: async (whole: Page) => await readInOrder(this, path, query, whole, pageSize, max, options);
	for (let previous: Changed | undefined; ; first = await firstPage()) {
		const read = await readOnce(first);
		if (Array.isArray(read)) return { items: read, severalPages };
		if (previous?.listed && read.listed && sameListing(previous.listed, read.listed))
			return { items: countIsOff(this, path, read.listed), severalPages };
		if (previous) {
			throw new NodeOperationError(
				this.getNode(),
				`The list changed while it was being read, twice: ${read.changed}`,
				{ itemIndex: options.itemIndex, description: CHANGED_ADVICE },
			);
		}
		previous = read;
	}
}

function sameListing(a: Listed, b: Listed): boolean {
	return a.count === b.count && sameItems(a.items, b.items);
}

/** Returns every listed item, with a warning: a failure here is one no run again would fix. */
function countIsOff(ctx: ApiContext, path: string, listed: Listed): IDataObject[] {
	const message =
		`GET ${path}: total_count says ${listed.count} but its pages list ${listed.items.length} ` +
		`items, the same in two reads in a row; the ${listed.items.length} listed items were returned`;
	ctx.logger.warn(`Virtual Mailbox: ${message}`);
	const hints = ctx as { addExecutionHints?: (...hints: Array<{ message: string }>) => void };
	hints.addExecutionHints?.({ message: `${message} (the API's count is off).` });
	return listed.items;
}

/** One read, one page after another; past the depth limit a Limit stops once it has its items. */
async function readInOrder(
	ctx: ApiContext,
	path: string,
	query: Query,
	first: Page,
	pageSize: number,
	max: number,
	options: ListOptions,
): Promise<IDataObject[] | Changed> {
	const undivided = first.total_count <= DEPTH_LIMIT || max <= DEPTH_LIMIT;
	const leaves = undivided
		? [{ query, first }]
		: await splitWithin(ctx, path, { query, first }, options, DEPTH_LIMIT);
	if (!Array.isArray(leaves)) return leaves;
	const items = await mergeParts(ctx, path, query, leaves, pageSize, max, options);
	// Every page reported its part's first count (mergeParts checks): the items must match it.
	if (!Array.isArray(items) || Number.isFinite(max) || items.length === first.total_count)
		return items;
	return {
		changed:
			`${first.total_count} items matched when the read ` +
			`began, ${items.length} different items were read`,
		...(undivided ? { listed: { items, count: first.total_count } } : {}),
	};
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
): Promise<IDataObject[] | Changed> {
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
	const fill = async (head: (typeof heads)[number]): Promise<Changed | undefined> => {
		while (head.buffer.length === 0 && !head.done) {
			const next = await head.pages.next();
			const held = head.leaf.first.total_count;
			if (next.done) {
				head.done = true;
				// An item that moved between parts mid-read would otherwise be missed or read twice.
				if (leaves.length > 1 && head.read !== held)
					return {
						changed:
							`the part ${partLabel(head.leaf.query, whole)} held ` +
							`${held} items when the read began, ${head.read} were read`,
					};
				return undefined;
			}
			const page = next.value;
			if (page.total_count !== held)
				return {
					changed:
						leaves.length > 1
							? `the part ${partLabel(head.leaf.query, whole)} held ` +
								`${held} items when the read began, then ${page.total_count}`
							: `${held} items matched when the read began, then ${page.total_count}`,
				};
			head.buffer.push(...page.data);
			head.read += page.data.length;
		}
		return undefined;
	};
	while (!out.full) {
		let best: (typeof heads)[number] | undefined;
		for (const head of heads) {
			const changed = await fill(head);
			if (changed) return changed;
			if (head.buffer.length > 0 && (!best || order(head.buffer[0], best.buffer[0]) < 0))
				best = head;
		}
		if (!best) break;
		out.add([best.buffer.shift()!]);
	}
	return out.items;
}

/** Parts that one query each can page through (`reach` items); else fails before fetching. */
async function splitWithin(
	ctx: ApiContext,
	path: string,
	whole: Leaf,
	options: ListOptions,
	reach: number,
): Promise<Leaf[] | Changed> {
	const leaves = await planSplit(ctx, path, whole, options, 0, reach);
	if (Array.isArray(leaves) && leaves.some((leaf) => leaf.first.total_count > reach))
		throw unreachableError(ctx, whole.first, leaves, options, reach);
	return leaves;
}

/** The depth limit leaves items out whatever the split: the error gives the counts. */
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
		`${whole.total_count} items match, but only ${reachable} can be reached: the API pages ` +
			`through at most ${reach} items per query` +
			`${reach > DEPTH_LIMIT ? ' read from both ends' : ''}` +
			`${tried ? ` and splitting by ${tried} still leaves parts over that limit` : ''}`,
		{
			itemIndex: options.itemIndex,
			description:
				`Narrow the query${options.narrowHint ? ` with ${options.narrowHint}` : ''} so ` +
				`that fewer than ${reach} items match, or run the node once per narrower query.`,
		},
	);
}

/**
 * Probes each part's first page (also its first data page) and divides until every part fits
 * `reach`. Parts that do not add up to an unchanged whole leave out an item no filter value
 * selects: the next filter is tried instead. A whole whose count changed fails.
 */
async function planSplit(
	ctx: ApiContext,
	path: string,
	whole: Leaf,
	options: ListOptions,
	from: number,
	reach: number,
): Promise<Leaf[] | Changed> {
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
			return {
				changed:
					`${whole.first.total_count} items matched when the read began, then ` +
					`${again.total_count}`,
			};
		}
		const leaves: Leaf[] = [];
		for (const part of parts) {
			const split = await planSplit(ctx, path, part, options, division.next, reach);
			if (!Array.isArray(split)) return split;
			leaves.push(...split);
		}
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
