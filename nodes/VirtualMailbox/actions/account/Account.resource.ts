import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getMailingAddress from './getMailingAddress.operation';

export const operations = { get, getMailingAddress };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: "Get the account holder's name, email, status and PMB box number",
				action: 'Get the account',
			},
			{
				name: 'Get Mailing Address',
				value: 'getMailingAddress',
				description: 'Get the address senders should write on mail, including the PMB box number',
				action: 'Get the mailing address',
			},
		],
		default: 'get',
	},
];
