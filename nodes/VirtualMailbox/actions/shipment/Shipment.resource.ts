import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export const operations = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['shipment'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get a shipment, return to sender, check deposit or pickup with its status, tracking number and packed mail items',
				action: 'Get a shipment',
			},
		],
		default: 'get',
	},
	...get.description,
];
