import type { INodeProperties } from 'n8n-workflow';

export const mailIdField: INodeProperties = {
	displayName: 'Mail ID',
	name: 'mailId',
	type: 'string',
	required: true,
	default: '',
	placeholder: '12345',
	description: 'Numeric ID of the mail item (the "ID" field of Get Many results)',
};
