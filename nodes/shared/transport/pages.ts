import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../constants';
import type { ApiContext } from './credentials';
import type { Query } from './query';
import { apiRequest, type RequestOptions } from './request';

export interface Page {
	data: IDataObject[];
	next_cursor: string | null;
	total_count: number;
}

/** A query with its first page, already read. */
export interface Leaf {
	query: Query;
	first: Page;
}

/** One page of a list, its envelope checked: a malformed answer is a NodeApiError, no TypeError. */
export async function getPage(
	ctx: ApiContext,
	path: string,
	query: Query,
	limit: number,
	cursor: string | undefined,
	itemIndex?: number,
	slot: Pick<RequestOptions, 'pool' | 'priority'> = {},
): Promise<Page> {
	const body = await apiRequest.call(ctx, 'GET', path, {
		query: { ...query, limit, cursor },
		itemIndex,
		allowList: true,
		...slot,
	});
	if (Array.isArray(body))
		return {
			data: body as IDataObject[],
			next_cursor: null,
			total_count: (body as IDataObject[]).length,
		};
	if (!body || !Array.isArray((body as IDataObject).data)) {
		// Named by its fields only: the body is not kept in the error (an echo of the request, a
		// debugging proxy's JSON, would carry the Authorization header into the execution's data).
		const fields = Object.keys(body ?? {}).slice(0, 10);
		throw new NodeApiError(ctx.getNode(), { message: 'no "data" list' } as JsonObject, {
			message: `Unexpected response from GET ${path}: no "data" list`,
			description: `The answer was a JSON object ${fields.length ? `with the fields ${fields.map((f) => JSON.stringify(f.slice(0, 40))).join(', ')}` : 'without fields'}, not a page. Check that the credential's Base URL is the Virtual Mailbox API.`,
			itemIndex,
		});
	}
	const page = body as unknown as Page;
	return {
		data: page.data,
		next_cursor: page.next_cursor ?? null,
		total_count: Number(page.total_count ?? page.data.length),
	};
}

/** Fails on a cursor the API already returned or on more pages than the depth limit allows. */
export async function* eachPage(
	ctx: ApiContext,
	path: string,
	query: Query,
	{
		pageSize = PAGE_SIZE_MAX,
		itemIndex,
		first,
		slot,
	}: {
		pageSize?: number;
		itemIndex?: number;
		first?: Page;
		slot?: Pick<RequestOptions, 'pool' | 'priority'>;
	} = {},
): AsyncGenerator<Page> {
	const maxPages = Math.ceil(DEPTH_LIMIT / pageSize) + 1;
	const seen = new Set<string>();
	let page = first ?? (await getPage(ctx, path, query, pageSize, undefined, itemIndex, slot));
	for (let pages = 1; ; pages++) {
		yield page;
		const cursor = page.next_cursor;
		if (!cursor) return;
		if (seen.has(cursor) || pages >= maxPages) {
			throw new NodeOperationError(
				ctx.getNode(),
				seen.has(cursor)
					? `GET ${path} returned a cursor it had already returned; stopped to avoid an endless loop`
					: `GET ${path} kept returning pages past the ` +
						`${DEPTH_LIMIT}-item limit; stopped after ${pages} pages`,
				{ itemIndex },
			);
		}
		seen.add(cursor);
		page = await getPage(ctx, path, query, pageSize, cursor, itemIndex, slot);
	}
}
