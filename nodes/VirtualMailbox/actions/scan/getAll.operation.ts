import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { SCAN_LIST_STATUSES, SCAN_REQUEST_TYPES } from '../../../shared/constants';
import {
	filtersCollection,
	optionsOf,
	PERIOD_OPTIONS,
	returnAllAndLimit,
	returnAllOptions,
	SORT_FILTER,
} from '../../../shared/descriptions';
import { checkId, checkOneOf, checkPeriod, readReturnAll } from '../../../shared/validate';
import { listPaginated, type Query } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

/** The GET /v1/scans filters (beyond the published spec: the provider's SDK declares them). */
const properties: INodeProperties[] = [
	...returnAllAndLimit(),
	filtersCollection([
		{
			displayName: 'Mail ID',
			name: 'mailId',
			type: 'string',
			default: '',
			description: 'Only scans of this mail item (numeric ID)',
		},
		{
			displayName: 'Scanned',
			name: 'scanned',
			type: 'options',
			default: 'week',
			description: 'Only scans requested within this period',
			options: PERIOD_OPTIONS,
		},
		{
			displayName: 'Search',
			name: 'search',
			type: 'string',
			default: '',
			description: 'Free text to search the scans for',
		},
		SORT_FILTER,
		{
			displayName: 'Status',
			name: 'status',
			type: 'multiOptions',
			default: [],
			options: optionsOf(SCAN_LIST_STATUSES),
		},
		{
			displayName: 'Type',
			name: 'type',
			type: 'multiOptions',
			default: [],
			options: [
				{ name: 'Scan', value: 'scan', description: 'Scans of the item as it is' },
				{
					name: 'Open and Scan',
					value: 'open',
					description: 'Items opened and their contents scanned',
				},
			],
		},
	]),
	returnAllOptions(),
];

export const description = forOperation('scan', 'getAll', properties);

const listOf = (value: unknown): unknown[] =>
	Array.isArray(value) ? value : value === undefined || value === '' ? [] : [value];
const isSet = (value: unknown) => value !== undefined && value !== '';

/** A value the API does not take fails here, naming the filter. */
function scanQuery(this: IExecuteFunctions, filters: IDataObject, i: number): Query {
	return {
		status: listOf(filters.status).map((value) =>
			checkOneOf.call(this, value, SCAN_LIST_STATUSES, 'Status', i),
		),
		type: listOf(filters.type).map((value) =>
			checkOneOf.call(this, value, SCAN_REQUEST_TYPES, 'Type', i),
		),
		mail_id: isSet(filters.mailId)
			? checkId.call(this, filters.mailId, 'Mail ID', 'numeric', i)
			: undefined,
		search: isSet(filters.search) ? String(filters.search) : undefined,
		sort: isSet(filters.sort)
			? checkOneOf.call(this, filters.sort, ['newest', 'oldest'] as const, 'Sort', i)
			: undefined,
		scanned: isSet(filters.scanned)
			? checkPeriod.call(this, filters.scanned, 'Scanned', i)
			: undefined,
	};
}

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const query = scanQuery.call(this, this.getNodeParameter('filters', i, {}) as IDataObject, i);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return await listPaginated.call(this, '/v1/scans', query, {
		returnAll,
		limit,
		itemIndex: i,
		confirmUnchanged: options.confirmListUnchanged === true,
	});
}
