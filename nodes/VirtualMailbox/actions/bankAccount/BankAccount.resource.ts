import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations = { create, delete: del, get, getAll, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['bankAccount'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Add a bank account for check deposits',
				action: 'Create a bank account',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Remove a bank account',
				action: 'Delete a bank account',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a bank account (bank name, state and last 4 digits)',
				action: 'Get a bank account',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List bank accounts (bank name, state and last 4 digits only)',
				action: 'Get many bank accounts',
			},
			{
				name: 'Update',
				value: 'update',
				description: "Change a bank account's bank name, state or number",
				action: 'Update a bank account',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...del.description,
	...get.description,
	...getAll.description,
	...update.description,
];
