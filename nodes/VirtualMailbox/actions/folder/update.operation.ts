import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { folderLocator } from '../../../shared/descriptions';
import { checkColor, requireChanges } from '../../../shared/validate';
import { apiRequest, segment } from '../../../shared/transport';
import { colorField } from './Folder.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('folder', 'update', [
	folderLocator(),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			colorField,
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New folder name',
			},
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = await resolveFolderId.call(
		this,
		this.getNodeParameter('folderId', i) as FolderChoice,
		i,
		{ use: 'rename' },
	);
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.name !== undefined) {
		const name = String(fields.name).trim();
		if (name === '')
			throw new NodeOperationError(this.getNode(), 'Name cannot be empty', { itemIndex: i });
		body.name = name;
	}
	if (fields.color !== undefined) body.color = checkColor.call(this, fields.color, i);
	requireChanges.call(this, body, i, 'Add Name or Color under Update Fields.');
	return await apiRequest.call(this, 'PATCH', `/v1/folders/${segment(id)}`, { body, itemIndex: i });
}
