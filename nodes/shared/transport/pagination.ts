import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import type { Query } from './query';
import type { ApiContext } from './credentials';
import { apiRequest } from './request';

/** Page envelope of the spec. */
export interface Page {
	data: IDataObject[];
	next_cursor: string | null;
	total_count: number;
}

/** An exclusive partition of a query the API supports: every item matches exactly one value. */
export interface SplitDimension {
	param: string;
	values: readonly string[];
}

export interface ListOptions {
	returnAll: boolean;
	limit: number;
	itemIndex?: number;
	/** Partitions tried in order when more items match than one query can reach. */
	splits?: readonly SplitDimension[];
	/** Which filters the user can narrow with, for the depth-limit error. */
	narrowHint?: string;
	/** Order of merged results after a split (the parts come back one after another). */
	order?: (a: IDataObject, b: IDataObject) => number;
	/** Added to each part's query after a split, so every part comes back in one known order. */
	splitQuery?: Query;
}

interface Leaf {
	query: Query;
	first: Page;
}

/** One page of a list, its envelope checked: a malformed answer is a clear NodeApiError, never a TypeError. */
export async function getPage(
	ctx: ApiContext,
	path: string,
	query: Query,
	limit: number,
	cursor: string | undefined,
	itemIndex?: number,
): Promise<Page> {
	const body = await apiRequest.call(ctx, 'GET', path, { query: { ...query, limit, cursor }, itemIndex });
	if (Array.isArray(body)) return { data: body as IDataObject[], next_cursor: null, total_count: (body as IDataObject[]).length };
	if (!body || !Array.isArray((body as IDataObject).data)) {
		throw new NodeApiError(ctx.getNode(), (body ?? {}) as JsonObject, {
			message: `Unexpected response from GET ${path}: no "data" list`,
			itemIndex,
		});
	}
	const page = body as unknown as Page;
	return { data: page.data, next_cursor: page.next_cursor ?? null, total_count: Number(page.total_count ?? page.data.length) };
}

/**
 * Every page of one query, first to last, each checked by getPage. Stops on a null cursor; fails
 * on a cursor the API already returned or on more pages than the depth limit allows. `first`, when
 * given, is the query's first page, already read.
 */
export async function* eachPage(
	ctx: ApiContext,
	path: string,
	query: Query,
	{ pageSize = PAGE_SIZE_MAX, itemIndex, first }: { pageSize?: number; itemIndex?: number; first?: Page } = {},
): AsyncGenerator<Page> {
	const maxPages = Math.ceil(DEPTH_LIMIT / pageSize) + 1;
	const seen = new Set<string>();
	let page = first ?? (await getPage(ctx, path, query, pageSize, undefined, itemIndex));
	for (let pages = 1; ; pages++) {
		yield page;
		const cursor = page.next_cursor;
		if (!cursor) return;
		if (seen.has(cursor) || pages >= maxPages) {
			throw new NodeOperationError(
				ctx.getNode(),
				seen.has(cursor)
					? `GET ${path} returned a cursor it had already returned; stopped to avoid an endless loop`
					: `GET ${path} kept returning pages past the ${DEPTH_LIMIT}-item limit; stopped after ${pages} pages`,
				{ itemIndex },
			);
		}
		seen.add(cursor);
		page = await getPage(ctx, path, query, pageSize, cursor, itemIndex);
	}
}

/**
 * Read a cursor-paginated list. Return All asks 100 per page; Limit asks min(limit, 100) and keeps
 * the same page size on every page (the cursor is bound to the query). Guards: stops on a null
 * cursor, fails on a repeated cursor or a runaway page count. When more items match than
 * pagination can reach (10,000), the query is split into exclusive parts that each fit, the parts'
 * total_count must add up to the whole's, and results are merged without duplicates; when no split
 * reaches every item, it fails before fetching and says how many exist and how many are reachable.
 */
export async function listPaginated(
	this: ApiContext,
	path: string,
	query: Query,
	options: ListOptions,
): Promise<IDataObject[]> {
	const max = options.returnAll ? Number.POSITIVE_INFINITY : Math.max(1, options.limit);
	const pageSize = Math.min(PAGE_SIZE_MAX, max);
	const first = await getPage(this, path, query, pageSize, undefined, options.itemIndex);

	if (first.total_count <= DEPTH_LIMIT || max <= DEPTH_LIMIT) {
		const out = new Collector(max);
		await walk(this, path, { query, first }, pageSize, out, options.itemIndex);
		return out.items;
	}

	const leaves = await planSplit(this, path, { query, first }, options, 0);
	const unreachable = leaves.filter((leaf) => leaf.first.total_count > DEPTH_LIMIT);
	if (unreachable.length > 0) {
		const reachable = leaves.reduce((sum, leaf) => sum + Math.min(leaf.first.total_count, DEPTH_LIMIT), 0);
		const tried = (options.splits ?? []).map((s) => s.param).join(', ');
		throw new NodeOperationError(
			this.getNode(),
			`${first.total_count} items match, but only ${reachable} can be reached: the API pages through at most ${DEPTH_LIMIT} items per query${tried ? ` and splitting by ${tried} still leaves parts over that limit` : ''}`,
			{
				itemIndex: options.itemIndex,
				description: `Narrow the query${options.narrowHint ? ` with ${options.narrowHint}` : ''} so that fewer than ${DEPTH_LIMIT} items match, or run the node once per narrower query.`,
			},
		);
	}
	const out = new Collector(Number.POSITIVE_INFINITY);
	for (const leaf of leaves) {
		const read = await walk(this, path, leaf, PAGE_SIZE_MAX, out, options.itemIndex);
		// The counts were proven before reading; they must still hold after. An item that moved
		// between parts mid-read, or a part that grew, would otherwise be missed or cut short.
		if (read.items !== leaf.first.total_count || read.totals.some((total) => total !== leaf.first.total_count)) {
			const where = Object.entries(leaf.query).filter(([key, value]) => value !== undefined && key !== 'sort').map(([key, value]) => `${key}=${String(value)}`).join(', ');
			throw new NodeOperationError(this.getNode(), `The list changed while it was being read: the part ${where} held ${leaf.first.total_count} items when the read began, then ${read.totals.at(-1)} (${read.items} read)`, {
				itemIndex: options.itemIndex,
				description: 'Nothing was returned rather than a list that may miss or repeat items. Run the node again, or narrow the query so that it needs no split.',
			});
		}
	}
	if (out.items.length !== first.total_count) {
		throw new NodeOperationError(this.getNode(), `The list changed while it was being read: ${first.total_count} items matched when the read began, ${out.items.length} different items were read`, {
			itemIndex: options.itemIndex,
			description: 'Nothing was returned rather than a list that may miss or repeat items. Run the node again.',
		});
	}
	const items = options.order ? out.items.sort(options.order) : out.items;
	return Number.isFinite(max) ? items.slice(0, max) : items;
}

/** Probe each part's first page (it doubles as the part's first data page) and recurse. */
async function planSplit(
	ctx: ApiContext,
	path: string,
	whole: Leaf,
	options: ListOptions,
	from: number,
): Promise<Leaf[]> {
	if (whole.first.total_count <= DEPTH_LIMIT) return [whole];
	const splits = options.splits ?? [];
	for (let d = from; d < splits.length; d++) {
		const dimension = splits[d];
		const chosen = whole.query[dimension.param];
		const values = Array.isArray(chosen) && chosen.length > 0 ? chosen : dimension.values;
		if (values.length < 2) continue;
		const parts: Leaf[] = [];
		for (const value of values) {
			const query: Query = { ...whole.query, ...options.splitQuery, [dimension.param]: [value] };
			parts.push({ query, first: await getPage(ctx, path, query, PAGE_SIZE_MAX, undefined, options.itemIndex) });
		}
		const sum = parts.reduce((total, part) => total + part.first.total_count, 0);
		if (sum !== whole.first.total_count) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Could not prove the split result complete: the parts by ${dimension.param} hold ${sum} items but the query matches ${whole.first.total_count}`,
				{
					itemIndex: options.itemIndex,
					description: `Items matching no ${dimension.param} value, or mail arriving during the run, make the counts differ. Narrow the query${options.narrowHint ? ` with ${options.narrowHint}` : ''} to under ${DEPTH_LIMIT} items, or run again.`,
				},
			);
		}
		const leaves: Leaf[] = [];
		for (const part of parts) leaves.push(...(await planSplit(ctx, path, part, options, d + 1)));
		return leaves;
	}
	return [whole];
}

/** Read one query's pages into `out`; returns how many items its pages held and each page's total_count. */
async function walk(
	ctx: ApiContext,
	path: string,
	leaf: Leaf,
	pageSize: number,
	out: Collector,
	itemIndex: number | undefined,
): Promise<{ items: number; totals: number[] }> {
	const read = { items: 0, totals: [] as number[] };
	for await (const page of eachPage(ctx, path, leaf.query, { pageSize, itemIndex, first: leaf.first })) {
		read.items += page.data.length;
		read.totals.push(page.total_count);
		out.add(page.data);
		if (out.full) break;
	}
	return read;
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
