import type { INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../../shared/descriptions';

export const addressTypeField: INodeProperties = {
	displayName: 'Type',
	name: 'type',
	type: 'options',
	required: true,
	default: 'shipping',
	options: [
		{ name: 'Shipping', value: 'shipping', description: 'Where shipments of mail are sent' },
		{ name: 'Deposit', value: 'deposit', description: 'Where check deposits are sent' },
	],
};

export const addressIdField: INodeProperties = idLocator({
	displayName: 'Address ID',
	name: 'addressId',
	searchListMethod: 'searchAddresses',
	placeholder: '2d8de729-c368-47dd-a012-8acfdadd957e',
	description:
		'The shipping or deposit address: pick one from ' +
		'the list or give its UUID (from Get Many or Create)',
});

/** Every address field: node parameter, API field, label, and whether Create requires it. */
export const ADDRESS_FIELDS: ReadonlyArray<{
	param: string;
	field: string;
	label: string;
	required: boolean;
}> = [
	{ param: 'name', field: 'name', label: 'Name', required: true },
	{ param: 'line1', field: 'line1', label: 'Address Line 1', required: true },
	{ param: 'line2', field: 'line2', label: 'Address Line 2', required: false },
	{ param: 'line3', field: 'line3', label: 'Address Line 3', required: false },
	{ param: 'city', field: 'city', label: 'City', required: true },
	{ param: 'state', field: 'state', label: 'State', required: true },
	{ param: 'postalCode', field: 'postal_code', label: 'Postal Code', required: true },
	{ param: 'country', field: 'country', label: 'Country', required: true },
	{ param: 'phoneNumber', field: 'phone_number', label: 'Phone Number', required: true },
	{ param: 'taxId', field: 'tax_id', label: 'Tax ID', required: false },
];
