import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { folderLocator } from '../../../shared/descriptions';
import { apiRequest, segment } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('folder', 'delete', [folderLocator()]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = await resolveFolderId.call(
		this,
		this.getNodeParameter('folderId', i) as FolderChoice,
		i,
		{ use: 'delete' },
	);
	const body = await apiRequest.call(this, 'DELETE', `/v1/folders/${segment(id)}`, {
		itemIndex: i,
	});
	// The spec does not show the success body; an empty one still yields an item to chain on.
	return body && Object.keys(body).length > 0 ? body : { id, deleted: true };
}
