import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ADDRESS_TYPES } from '../../../shared/constants';
import { checkOneOf, requireText } from '../../../shared/validate';
import { apiRequest } from '../../../shared/transport';
import { ADDRESS_FIELDS, addressTypeField } from './Address.fields';
import { forOperation } from '../../../shared/display';

const text = (name: string, displayName: string, description?: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	required: true,
	default: '',
	...(description ? { description } : {}),
});

export const description: INodeProperties[] = forOperation('address', 'create', [
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
			{
				displayName: 'Tax ID',
				name: 'taxId',
				type: 'string',
				default: '',
				description: 'Needed by customs for some countries',
			},
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const body: IDataObject = {
		type: checkOneOf.call(this, this.getNodeParameter('type', i), ADDRESS_TYPES, 'Type', i),
	};
	const extra = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	for (const { param, field, label, required } of ADDRESS_FIELDS) {
		if (required) body[field] = requireText.call(this, param, i, label);
		else if (extra[param]) body[field] = String(extra[param]);
	}
	return await apiRequest.call(this, 'POST', '/v1/addresses', { body, itemIndex: i });
}
