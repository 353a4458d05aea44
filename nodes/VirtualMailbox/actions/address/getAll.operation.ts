import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	filtersCollection,
	returnAllAndLimit,
	returnAllOptions,
} from '../../../shared/descriptions';
import { ADDRESS_TYPES } from '../../../shared/constants';
import { checkOneOf, readReturnAll } from '../../../shared/validate';
import { addressTypeField } from './Address.fields';
import { listPaginated } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('address', 'getAll', [
	...returnAllAndLimit(),
	filtersCollection([
		{ ...addressTypeField, required: false, description: 'Only addresses of this type' },
	]),
	returnAllOptions(),
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const type =
		filters.type === undefined || filters.type === ''
			? undefined
			: checkOneOf.call(this, filters.type, ADDRESS_TYPES, 'Type', i);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return await listPaginated.call(
		this,
		'/v1/addresses',
		{ type },
		{ returnAll, limit, itemIndex: i, confirmUnchanged: options.confirmListUnchanged === true },
	);
}
