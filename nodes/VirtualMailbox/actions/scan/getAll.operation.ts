import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit } from '../../../shared/descriptions';
import { readReturnAll } from '../../../shared/validate';
import { listPaginated } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('scan', 'getAll', returnAllAndLimit(),
);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	return await listPaginated.call(this, '/v1/scans', {}, { returnAll, limit, itemIndex: i });
}
