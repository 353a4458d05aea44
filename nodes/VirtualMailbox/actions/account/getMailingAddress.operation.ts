import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	return await apiRequest.call(this, 'GET', '/v1/account/mailing-address', { itemIndex: i });
}
