import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ADDRESS_TYPES } from '../../../shared/constants';
import { checkOneOf, getId, requireChanges } from '../../../shared/validate';
import { apiRequest, segment } from '../../../shared/transport';
import { ADDRESS_FIELDS, addressIdField, addressTypeField } from './Address.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('address', 'update', [
	addressIdField,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		// Plain comparison of these ASCII labels: a first localeCompare loads ICU's collator, which
		// took 12 ms of the package's cold load (bench figure 4).
		// Type (beyond the published spec: the SDK's UpdateAddressDto has it) sorts last.
		options: [
			...[...ADDRESS_FIELDS]
				.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
				.map(({ param, label }) => ({
					displayName: label,
					name: param,
					type: 'string' as const,
					default: '',
				})),
			{ ...addressTypeField, required: false, description: 'Change the address to the other type' },
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'addressId', i, 'Address ID', 'text');
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	for (const { param, field } of ADDRESS_FIELDS)
		if (fields[param] !== undefined) body[field] = String(fields[param]);
	if (fields.type !== undefined)
		body.type = checkOneOf.call(this, fields.type, ADDRESS_TYPES, 'Type', i);
	requireChanges.call(this, body, i, 'Add at least one field under Update Fields.');
	return await apiRequest.call(this, 'PATCH', `/v1/addresses/${segment(id)}`, {
		body,
		itemIndex: i,
	});
}
