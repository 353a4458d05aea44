import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { readReturnAll, returnAllAndLimit } from '../../../shared/params';
import { apiRequest, unwrapList } from '../../../shared/transport';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['folder'], operation: ['getAll'] } },
	returnAllAndLimit(),
);

/** GET /v1/folders is not paginated: one request returns every folder. */
export async function listFolders(this: IExecuteFunctions | ILoadOptionsFunctions, itemIndex?: number): Promise<IDataObject[]> {
	const body = await apiRequest.call(this, 'GET', '/v1/folders', { itemIndex });
	const folders = unwrapList(body);
	if (!folders) {
		throw new NodeApiError(this.getNode(), (body ?? {}) as JsonObject, {
			message: 'Unexpected response from GET /v1/folders: no list of folders',
			itemIndex,
		});
	}
	return folders;
}

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const folders = await listFolders.call(this, i);
	return returnAll ? folders : folders.slice(0, limit);
}
