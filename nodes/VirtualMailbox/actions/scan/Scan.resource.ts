import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as complete from './complete.operation';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as download from './download.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getSummary from './getSummary.operation';

export const operations = {
	cancel,
	complete,
	create,
	delete: del,
	download,
	get,
	getAll,
	getSummary,
};

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
				description:
					'Sandbox only: force a pending scan to completed, optionally with a label and summary',
				action: 'Complete a scan in the sandbox',
			},
			{
				name: 'Create',
				value: 'create',
				description:
					'Request a scan (letters, large letters) or an open-and-scan (magazines, catalogs, ' +
					'softpaks, packages) of a mail item. Billable: the mailroom does real work.',
				action: 'Request a scan',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Permanently delete the stored scan file; it cannot be recovered',
				action: 'Delete a scan',
			},
			{
				name: 'Download',
				value: 'download',
				description: 'Download the scan file (PDF) as binary data, ready to save to storage',
				action: 'Download a scan file',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a scan request with its status, type and timestamps',
				action: 'Get a scan',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List scan requests, filtered by status, type, mail ' +
					'item, period or search text, newest or oldest first',
				action: 'Get many scans',
			},
			{
				name: 'Get Summary',
				value: 'getSummary',
				description:
					'Get the AI label and bullet-point summary of a completed scan (plans with scan labeling)',
				action: 'Get a scan summary',
			},
		],
		default: 'get',
	},
	...cancel.description,
	...complete.description,
	...create.description,
	...del.description,
	...download.description,
	...get.description,
	...getAll.description,
	...getSummary.description,
];
