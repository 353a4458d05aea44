import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit, returnAllOptions } from '../../../shared/descriptions';
import { readReturnAll } from '../../../shared/validate';
import { listPaginated } from '../../../shared/transport';
import { withoutAccountNumber } from './BankAccount.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('bankAccount', 'getAll', [
	...returnAllAndLimit(),
	returnAllOptions(),
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const accounts = await listPaginated.call(
		this,
		'/v1/bank-accounts',
		{},
		{ returnAll, limit, itemIndex: i, confirmUnchanged: options.confirmListUnchanged === true },
	);
	return accounts.map(withoutAccountNumber);
}
