// Operations of the bank account resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import * as F from '../../../support/fixtures.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();
const bankId = F.bankAccount(1).id;

operationCases('bank account operations send the exact request and output the API object', mock, [
	{
		name: 'bank account create',
		parameters: {
			resource: 'bankAccount',
			operation: 'create',
			bankName: 'First Bank',
			bankState: 'NY',
			accountNumber: '000123456789',
		},
		request: [
			'POST',
			'/v1/bank-accounts',
			{ bank_name: 'First Bank', bank_state: 'NY', account_number: '000123456789' },
		],
		status: 201,
		reply: F.bankAccount(1, { bank_name: 'First Bank' }),
	},
	{
		name: 'bank account update',
		parameters: {
			resource: 'bankAccount',
			operation: 'update',
			bankAccountId: { __rl: true, mode: 'id', value: F.bankAccount(2).id },
			updateFields: { accountNumber: '999988887777' },
		},
		request: [
			'PATCH',
			`/v1/bank-accounts/${F.bankAccount(2).id}`,
			{ account_number: '999988887777' },
		],
		reply: F.bankAccount(2, { account_number_last4: '7777' }),
	},
	{
		name: 'bank account get',
		parameters: {
			resource: 'bankAccount',
			operation: 'get',
			bankAccountId: { __rl: true, mode: 'list', value: bankId },
		},
		request: ['GET', `/v1/bank-accounts/${bankId}`],
		reply: F.bankAccount(1),
	},
	{
		name: 'bank account delete',
		parameters: { resource: 'bankAccount', operation: 'delete', bankAccountId: bankId },
		request: ['DELETE', `/v1/bank-accounts/${bankId}`],
		status: 204,
		reply: '',
		output: [{ id: bankId, deleted: true }],
	},
]);
