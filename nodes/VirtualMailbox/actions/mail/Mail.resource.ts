import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as undiscard from './undiscard.operation';

export const operations = { get, getAll, undiscard };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['mail'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one mail item with its details (sender, type, weight, folder, scan)',
				action: 'Get a mail item',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List mail items, newest first by default, filtered by status, type, scan status, folder, arrival period, read state or search text',
				action: 'Get many mail items',
			},
			{
				name: 'Undiscard',
				value: 'undiscard',
				description: 'Cancel a pending discard (shred) request so the mail item is kept',
				action: 'Undiscard a mail item',
			},
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
	...undiscard.description,
];
