import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ADDRESS_TYPES } from '../../../shared/constants';
import { checkOneOf } from '../../../shared/validate';
import { apiRequest } from '../../../shared/transport';
import { addressTypeField } from './Address.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('address', 'getDefault', [
	addressTypeField,
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const type = checkOneOf.call(this, this.getNodeParameter('type', i), ADDRESS_TYPES, 'Type', i);
	return await apiRequest.call(this, 'GET', '/v1/addresses/default', {
		query: { type },
		itemIndex: i,
	});
}
