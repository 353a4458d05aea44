import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ADDRESS_TYPES } from '../../../shared/constants';
import { checkOneOf, requireText } from '../../../shared/params';
import { apiRequest } from '../../../shared/transport';
import { addressTypeField } from './Address.fields';

/** Required body fields: node parameter → API field. */
const REQUIRED: Array<[string, string, string]> = [
	['name', 'name', 'Name'],
	['line1', 'line1', 'Address Line 1'],
	['city', 'city', 'City'],
	['state', 'state', 'State'],
	['postalCode', 'postal_code', 'Postal Code'],
	['country', 'country', 'Country'],
	['phoneNumber', 'phone_number', 'Phone Number'],
];

const text = (name: string, displayName: string, description?: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	required: true,
	default: '',
	...(description ? { description } : {}),
});

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['address'], operation: ['create'] } }, [
	addressTypeField,
	text('name', 'Name', 'Recipient name'),
	text('line1', 'Address Line 1'),
	text('city', 'City'),
	text('state', 'State', 'State or region'),
	text('postalCode', 'Postal Code'),
	text('country', 'Country', 'Country, for example US'),
	text('phoneNumber', 'Phone Number', 'Carriers need it for delivery'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{ displayName: 'Address Line 2', name: 'line2', type: 'string', default: '' },
			{ displayName: 'Address Line 3', name: 'line3', type: 'string', default: '' },
			{ displayName: 'Tax ID', name: 'taxId', type: 'string', default: '', description: 'Needed by customs for some countries' },
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const body: IDataObject = { type: checkOneOf.call(this, this.getNodeParameter('type', i), ADDRESS_TYPES, 'Type', i) };
	for (const [param, field, label] of REQUIRED) body[field] = requireText.call(this, param, i, label);
	const extra = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	if (extra.line2) body.line2 = String(extra.line2);
	if (extra.line3) body.line3 = String(extra.line3);
	if (extra.taxId) body.tax_id = String(extra.taxId);
	return await apiRequest.call(this, 'POST', '/v1/addresses', { body, itemIndex: i });
}
