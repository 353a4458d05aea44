import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { folderLocator } from '../../../shared/descriptions';
import { getId, requireChanges } from '../../../shared/validate';
import { apiRequest, segment } from '../../../shared/transport';
import { createFolderIfMissingOption, mailIdField } from './Mail.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('mail', 'update', [
	mailIdField,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				...folderLocator({
					required: false,
					description:
						'File the mail item into this folder (pick it, give its ID, or give its name)',
				}),
			},
			{
				displayName: 'Is Read',
				name: 'isRead',
				type: 'boolean',
				default: true,
				description: 'Whether to mark the mail item read (or unread)',
			},
			{
				displayName: 'Take Out of Folder',
				name: 'removeFromFolder',
				type: 'boolean',
				default: true,
				description: 'Whether to take the mail item out of its folder (back to unfiled)',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			createFolderIfMissingOption(
				'Whether to create the folder when it is given by name and does not exist ' +
					'yet (on by default: filing into a new name creates it once, however ' +
					'many items run). Off: a missing name fails, listing the folders there are.',
			),
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'mailId', i, 'Mail ID', 'numeric');
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.folderId !== undefined && fields.removeFromFolder === true) {
		throw new NodeOperationError(
			this.getNode(),
			'Choose either Folder or Take Out of Folder, not both',
			{ itemIndex: i },
		);
	}
	if (fields.folderId !== undefined) {
		body.folder_id = await resolveFolderId.call(this, fields.folderId as FolderChoice, i, {
			use: 'file',
			createIfMissing: options.createFolderIfMissing !== false,
			createOption: true,
		});
	}
	if (fields.removeFromFolder === true) body.folder_id = null;
	if (fields.isRead !== undefined) body.is_read = fields.isRead === true;
	requireChanges.call(
		this,
		body,
		i,
		'Add Folder, Take Out of Folder or Is Read under Update Fields.',
	);
	return await apiRequest.call(this, 'PATCH', `/v1/mails/${segment(id)}`, { body, itemIndex: i });
}
