import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, segment } from '../../../shared/transport';
import { addressIdField } from './Address.fields';

/** Update field (node parameter) → API field. */
const FIELDS: Array<[string, string, string]> = [
	['city', 'city', 'City'],
	['country', 'country', 'Country'],
	['line1', 'line1', 'Address Line 1'],
	['line2', 'line2', 'Address Line 2'],
	['line3', 'line3', 'Address Line 3'],
	['name', 'name', 'Name'],
	['phoneNumber', 'phone_number', 'Phone Number'],
	['postalCode', 'postal_code', 'Postal Code'],
	['state', 'state', 'State'],
	['taxId', 'tax_id', 'Tax ID'],
];

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['address'], operation: ['update'] } }, [
	addressIdField,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: FIELDS.map(([name, , displayName]) => ({ displayName, name, type: 'string' as const, default: '' })),
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'addressId', i, 'Address ID', 'text');
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	for (const [param, field] of FIELDS) if (fields[param] !== undefined) body[field] = String(fields[param]);
	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(this.getNode(), 'Nothing to update', { itemIndex: i, description: 'Add at least one field under Update Fields.' });
	}
	return await apiRequest.call(this, 'PATCH', `/v1/addresses/${segment(id)}`, { body, itemIndex: i });
}
