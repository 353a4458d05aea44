import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	filtersCollection,
	optionsOf,
	returnAllAndLimit,
	returnAllOptions,
} from '../../../shared/descriptions';
import { readReturnAll } from '../../../shared/validate';
import { listPaginated } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

const TYPES = ['shipment', 'return_to_sender', 'check_deposit', 'pickup'];
const STATUSES = ['shipped', 'in_progress', 'payment_failed', 'rejected'];

export const description: INodeProperties[] = forOperation('shipment', 'getAll', [
	...returnAllAndLimit(),
	filtersCollection([
		{
			displayName: 'Status',
			name: 'status',
			type: 'multiOptions',
			default: [],
			options: optionsOf(STATUSES),
		},
		{
			displayName: 'Type',
			name: 'type',
			type: 'multiOptions',
			default: [],
			options: optionsOf(TYPES),
		},
	]),
	returnAllOptions(),
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const query = {
		type: (filters.type as string[] | undefined) ?? [],
		status: (filters.status as string[] | undefined) ?? [],
	};
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return await listPaginated.call(this, '/v1/shipments', query, {
		returnAll,
		limit,
		itemIndex: i,
		confirmUnchanged: options.confirmListUnchanged === true,
	});
}
