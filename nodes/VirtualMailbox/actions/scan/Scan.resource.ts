import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as complete from './complete.operation';
import * as get from './get.operation';
import * as getSummary from './getSummary.operation';

export const operations = { cancel, complete, get, getSummary };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['scan'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a scan request that is still in process',
				action: 'Cancel a scan',
			},
			{
				name: 'Complete (Sandbox)',
				value: 'complete',
				description: 'Sandbox only: force a pending scan to completed, optionally with a label and summary',
				action: 'Complete a scan in the sandbox',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a scan request with its status, type and timestamps',
				action: 'Get a scan',
			},
			{
				name: 'Get Summary',
				value: 'getSummary',
				description: 'Get the AI label and bullet-point summary of a completed scan (plans with scan labeling)',
				action: 'Get a scan summary',
			},
		],
		default: 'get',
	},
	...cancel.description,
	...complete.description,
	...get.description,
	...getSummary.description,
];
