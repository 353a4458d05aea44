import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../../shared/descriptions';

export const accountNumberField: INodeProperties = {
	displayName: 'Account Number',
	name: 'accountNumber',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	description:
		'Full bank account number. Write-only: the API and this node only ever return its last 4 digits.',
};

export const bankAccountLocator: INodeProperties = idLocator({
	displayName: 'Bank Account',
	name: 'bankAccountId',
	searchListMethod: 'searchBankAccounts',
	placeholder: 'b3e1c7a2-…',
	description:
		'The bank account for check deposits: pick one from ' +
		'the list (bank name and last 4 digits) or give its ID',
});

/** Bank account numbers are write-only: never let a full number reach an output. */
export function withoutAccountNumber(account: IDataObject): IDataObject {
	if (!account || typeof account !== 'object' || !('account_number' in account)) return account;
	const rest = { ...account };
	delete rest.account_number;
	return rest;
}
