import type { INodeProperties } from 'n8n-workflow';

import * as applyRules from './applyRules.operation';
import * as archive from './archive.operation';
import * as discard from './discard.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as seedMailbox from './seedMailbox.operation';
import * as seedMailItem from './seedMailItem.operation';
import * as unarchive from './unarchive.operation';
import * as undiscard from './undiscard.operation';
import * as update from './update.operation';

export const operations = {
	applyRules,
	archive,
	discard,
	get,
	getAll,
	seedMailbox,
	seedMailItem,
	unarchive,
	undiscard,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['mail'] } },
		options: [
			{
				name: 'Archive',
				value: 'archive',
				description: 'Move a mail item from the inbox to the archive',
				action: 'Archive a mail item',
			},
			{
				name: 'Discard',
				value: 'discard',
				description:
					'Request shredding of a mail item. Destructive: ' +
					'it is shredded 7 days later unless undiscarded.',
				action: 'Discard a mail item',
			},
			{
				name: 'File by Rules',
				value: 'applyRules',
				description:
					'File mail into folders by ordered rules (sender, recipient, mail type, ' +
					'scan label or summary, weight, any text); the first rule that matches ' +
					'wins; optionally mark read or archive; Preview Only changes nothing',
				action: 'File mail by rules',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one mail item with its details (sender, type, weight, folder, scan)',
				action: 'Get a mail item',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List mail items, newest first by default, filtered by status, ' +
					'type, scan status, folder, arrival period, read state or search text',
				action: 'Get many mail items',
			},
			{
				name: 'Move to Folder or Mark Read',
				value: 'update',
				description:
					'File a mail item into a folder (picked, by ID or by name, created ' +
					'if missing), take it out of its folder, or mark it read or unread',
				action: 'Move mail to folder',
			},
			{
				name: 'Seed Mail Item (Sandbox)',
				value: 'seedMailItem',
				description:
					'Sandbox only: add one test mail item of a chosen type, sender, weight and size',
				action: 'Seed a mail item in the sandbox',
			},
			{
				name: 'Seed Mailbox (Sandbox)',
				value: 'seedMailbox',
				description:
					'Sandbox only: fill the mailbox with sample mail, one output item per mail item',
				action: 'Seed the mailbox in the sandbox',
			},
			{
				name: 'Unarchive',
				value: 'unarchive',
				description: 'Move an archived mail item back to its previous inbox status',
				action: 'Unarchive a mail item',
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
	...applyRules.description,
	...archive.description,
	...discard.description,
	...get.description,
	...getAll.description,
	...seedMailbox.description,
	...seedMailItem.description,
	...unarchive.description,
	...undiscard.description,
	...update.description,
];
