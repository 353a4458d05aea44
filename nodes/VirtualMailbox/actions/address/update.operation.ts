import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, segment } from '../../../shared/transport';
import { ADDRESS_FIELDS, addressIdField } from './Address.fields';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['address'], operation: ['update'] } }, [
	addressIdField,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [...ADDRESS_FIELDS]
			.sort((a, b) => a.label.localeCompare(b.label))
			.map(({ param, label }) => ({ displayName: label, name: param, type: 'string' as const, default: '' })),
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'addressId', i, 'Address ID', 'text');
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	for (const { param, field } of ADDRESS_FIELDS) if (fields[param] !== undefined) body[field] = String(fields[param]);
	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(this.getNode(), 'Nothing to update', { itemIndex: i, description: 'Add at least one field under Update Fields.' });
	}
	return await apiRequest.call(this, 'PATCH', `/v1/addresses/${segment(id)}`, { body, itemIndex: i });
}
