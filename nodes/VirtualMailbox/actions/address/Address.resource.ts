import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getDefault from './getDefault.operation';
import * as setDefault from './setDefault.operation';
import * as update from './update.operation';

export const operations = { create, delete: del, get, getAll, getDefault, setDefault, update };

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
				description:
					'Add a shipping address (for shipments) or a deposit address (for check deposits)',
				action: 'Create an address',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete an address',
				action: 'Delete an address',
			},
			{ name: 'Get', value: 'get', description: 'Get one address', action: 'Get an address' },
			{
				name: 'Get Default',
				value: 'getDefault',
				description: 'Get the default shipping or deposit address',
				action: 'Get the default address',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the shipping and deposit addresses, or those of one type',
				action: 'Get many addresses',
			},
			{
				name: 'Set Default',
				value: 'setDefault',
				description: 'Make an address the default of its type, replacing the previous default',
				action: 'Set the default address',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change fields of an address, its type included',
				action: 'Update an address',
			},
		],
		default: 'getDefault',
	},
	...create.description,
	...del.description,
	...get.description,
	...getAll.description,
	...getDefault.description,
	...setDefault.description,
	...update.description,
];
