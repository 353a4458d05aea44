import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { type FolderChoice, resolveFolderId } from '../../../shared/folders';
import { folderLocator } from '../../../shared/descriptions';
import { apiRequest, segment } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('folder', 'get', [folderLocator()]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = await resolveFolderId.call(
		this,
		this.getNodeParameter('folderId', i) as FolderChoice,
		i,
		{ use: 'read' },
	);
	return await apiRequest.call(this, 'GET', `/v1/folders/${segment(id)}`, { itemIndex: i });
}
