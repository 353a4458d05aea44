import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit } from '../../../shared/descriptions';
import { forOperation } from '../../../shared/display';
import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { MAIL_FILTERS, MAIL_SPLITS, mailQuery } from '../../../shared/mail';
import { listPaginated } from '../../../shared/transport';
import { locatorValue, readReturnAll } from '../../../shared/validate';

const properties: INodeProperties[] = [
	...returnAllAndLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: MAIL_FILTERS,
	},
];

export const description = forOperation('mail', 'getAll', properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const folder = filters.folderId as FolderChoice | string | undefined;
	const folderId = locatorValue(folder) ? await resolveFolderId.call(this, folder, i) : undefined;
	const query = mailQuery(filters, folderId);
	const sort = (filters.sort as string | undefined) ?? 'newest';
	const time = (item: IDataObject) => Date.parse(String(item.arrival_date ?? '')) || 0;

	return await listPaginated.call(this, '/v1/mails', query, {
		returnAll,
		limit,
		itemIndex: i,
		splits: MAIL_SPLITS,
		splitQuery: { sort },
		order: (a, b) => (sort === 'oldest' ? time(a) - time(b) : time(b) - time(a)),
		narrowHint: 'the Arrived, Folder or Search filter',
	});
}
