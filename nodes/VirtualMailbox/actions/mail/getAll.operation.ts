import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	filtersCollection,
	returnAllAndLimit,
	returnAllOptions,
} from '../../../shared/descriptions';
import { forOperation } from '../../../shared/display';
import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { MAIL_FILTERS, MAIL_SPLITS, mailOrder, mailQuery } from '../../../shared/mail';
import { listPaginated } from '../../../shared/transport';
import { checkPeriod, locatorValue, readReturnAll } from '../../../shared/validate';

/** More than this many requests at once from one node run would look like a flood to the API. */
const MAX_PARALLEL = 10;
const DEFAULT_PARALLEL = 6;

const properties: INodeProperties[] = [
	...returnAllAndLimit(),
	filtersCollection(MAIL_FILTERS),
	returnAllOptions([
		{
			displayName: 'Max Parallel Requests',
			name: 'maxParallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_PARALLEL },
			default: DEFAULT_PARALLEL,
			description:
				'How many pages to read at the same time when returning all. ' +
				'Large lists are divided into parts read at once, which is ' +
				'much faster over the internet; 1 reads one page after another.',
		},
	]),
];

export const description = forOperation('mail', 'getAll', properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const filters = { ...(this.getNodeParameter('filters', i, {}) as IDataObject) };
	// An AI agent may send "this week": read as the period it names, or fail before any request.
	if (filters.arrived !== undefined && filters.arrived !== '')
		filters.arrived = checkPeriod.call(this, filters.arrived, 'Arrived', i);
	const folder = filters.folderId as FolderChoice | string | undefined;
	const folderId = locatorValue(folder)
		? await resolveFolderId.call(this, folder, i, { use: 'filter' })
		: undefined;
	const sort = (filters.sort as string | undefined) || 'newest';
	// Always sent: the spec names no default order, and the reverse read must mirror the front one.
	const query = { ...mailQuery(filters, folderId), sort };
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const maxParallel = options.maxParallelRequests ?? DEFAULT_PARALLEL;
	if (
		typeof maxParallel !== 'number' ||
		!Number.isInteger(maxParallel) ||
		maxParallel < 1 ||
		maxParallel > MAX_PARALLEL
	) {
		throw new NodeOperationError(
			this.getNode(),
			'Max Parallel Requests must be a whole number from ' +
				`1 to ${MAX_PARALLEL}, got ${String(maxParallel)}`,
			{ itemIndex: i },
		);
	}

	return await listPaginated.call(this, '/v1/mails', query, {
		returnAll,
		limit,
		itemIndex: i,
		splits: MAIL_SPLITS,
		splitQuery: { sort },
		reverseQuery: { sort: sort === 'oldest' ? 'newest' : 'oldest' },
		order: mailOrder(sort),
		maxParallel,
		confirmUnchanged: options.confirmListUnchanged === true,
		narrowHint: 'the Arrived, Folder or Search filter',
	});
}
