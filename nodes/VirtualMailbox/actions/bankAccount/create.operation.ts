import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../../shared/validate';
import { apiRequest } from '../../../shared/transport';
import { accountNumberField, withoutAccountNumber } from './BankAccount.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('bankAccount', 'create', [
	{ displayName: 'Bank Name', name: 'bankName', type: 'string', required: true, default: '' },
	{
		displayName: 'Bank State',
		name: 'bankState',
		type: 'string',
		required: true,
		default: '',
		description: 'State where the bank is, for example NY',
	},
	{ ...accountNumberField, required: true },
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const accountNumber = requireText.call(this, 'accountNumber', i, 'Account Number');
	const body = {
		bank_name: requireText.call(this, 'bankName', i, 'Bank Name'),
		bank_state: requireText.call(this, 'bankState', i, 'Bank State'),
		account_number: accountNumber,
	};
	const created = await apiRequest.call(this, 'POST', '/v1/bank-accounts', {
		body,
		itemIndex: i,
		secrets: [accountNumber],
	});
	return withoutAccountNumber(created);
}
