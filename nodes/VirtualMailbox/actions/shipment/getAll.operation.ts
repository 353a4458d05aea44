import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readReturnAll, returnAllAndLimit } from '../../../shared/params';
import { listPaginated } from '../../../shared/transport';

const TYPES = ['shipment', 'return_to_sender', 'check_deposit', 'pickup'];
const STATUSES = ['shipped', 'in_progress', 'payment_failed', 'rejected'];
const label = (value: string) => value.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['shipment'], operation: ['getAll'] } }, [
	...returnAllAndLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{ displayName: 'Status', name: 'status', type: 'multiOptions', default: [], options: STATUSES.map((value) => ({ name: label(value), value })) },
			{ displayName: 'Type', name: 'type', type: 'multiOptions', default: [], options: TYPES.map((value) => ({ name: label(value), value })) },
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const query = { type: (filters.type as string[] | undefined) ?? [], status: (filters.status as string[] | undefined) ?? [] };
	return await listPaginated.call(this, '/v1/shipments', query, { returnAll, limit, itemIndex: i });
}
