import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as getDefault from './getDefault.operation';

export const operations = { create, getDefault };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['address'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Add a shipping address (for shipments) or a deposit address (for check deposits)',
				action: 'Create an address',
			},
			{
				name: 'Get Default',
				value: 'getDefault',
				description: 'Get the default shipping or deposit address',
				action: 'Get the default address',
			},
		],
		default: 'getDefault',
	},
	...create.description,
	...getDefault.description,
];
