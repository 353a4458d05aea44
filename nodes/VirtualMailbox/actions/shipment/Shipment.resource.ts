import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

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
				description:
					'Get a shipment, return to sender, check deposit or pickup ' +
					'with its status, tracking number and packed mail items',
				action: 'Get a shipment',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List shipments, optionally by type and status',
				action: 'Get many shipments',
			},
		],
		default: 'get',
	},
	...get.description,
	...getAll.description,
];
