import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit } from '../../../shared/descriptions';
import { readReturnAll } from '../../../shared/validate';
import { listPaginated } from '../../../shared/transport';
import { withoutAccountNumber } from './BankAccount.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('bankAccount', 'getAll', returnAllAndLimit(),
);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const { returnAll, limit } = readReturnAll.call(this, i);
	const accounts = await listPaginated.call(this, '/v1/bank-accounts', {}, { returnAll, limit, itemIndex: i });
	return accounts.map(withoutAccountNumber);
}
