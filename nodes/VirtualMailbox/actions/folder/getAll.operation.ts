import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listAllFolders } from '../../../shared/folders';
import { returnAllAndLimit } from '../../../shared/descriptions';
import { readReturnAll } from '../../../shared/validate';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('folder', 'getAll', returnAllAndLimit());

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const folders = await listAllFolders.call(this, i);
	return returnAll ? folders : folders.slice(0, limit);
}
