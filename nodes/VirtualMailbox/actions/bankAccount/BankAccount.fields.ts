import type { IDataObject, INodeProperties } from 'n8n-workflow';

export const accountNumberField: INodeProperties = {
	displayName: 'Account Number',
	name: 'accountNumber',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	description: 'Full bank account number. Write-only: the API and this node only ever return its last 4 digits.',
};

export const bankAccountLocator: INodeProperties = {
	displayName: 'Bank Account',
	name: 'bankAccountId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchBankAccounts', searchable: true },
		},
		{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'b3e1c7a2-…' },
	],
};

/** Bank account numbers are write-only: never let a full number reach an output. */
export function withoutAccountNumber(account: IDataObject): IDataObject {
	if (!account || typeof account !== 'object' || !('account_number' in account)) return account;
	const rest = { ...account };
	delete rest.account_number;
	return rest;
}
