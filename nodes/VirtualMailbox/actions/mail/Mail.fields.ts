import type { INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../../shared/descriptions';

export const mailIdField: INodeProperties = idLocator({
	displayName: 'Mail ID',
	name: 'mailId',
	searchListMethod: 'searchMails',
	placeholder: '12345',
	description:
		'The mail item: pick one of the newest (type a sender or recipient name to ' +
		'search) or give its numeric ID, the "ID" field of Get Many results or of a trigger',
	idPattern: { regex: '^\\s*\\d+\\s*$', errorMessage: 'A mail ID is a number such as 12345' },
});

/** Update and File by Rules read it as `createFolderIfMissing !== false`. */
export const createFolderIfMissingOption = (description: string): INodeProperties => ({
	displayName: 'Create Folder If Missing',
	name: 'createFolderIfMissing',
	type: 'boolean',
	default: true,
	description,
});
