import type { INodeProperties } from 'n8n-workflow';

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

export const addressIdField: INodeProperties = {
	displayName: 'Address ID',
	name: 'addressId',
	type: 'string',
	required: true,
	default: '',
	description: 'UUID of the address (from Get Many or Create)',
};
