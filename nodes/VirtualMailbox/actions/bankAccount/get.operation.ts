import { byIdOperation } from '../../../shared/byId';
import { bankAccountLocator, withoutAccountNumber } from './BankAccount.fields';

export const { description, execute } = byIdOperation({
	resource: 'bankAccount',
	operation: 'get',
	field: bankAccountLocator,
	label: 'Bank Account',
	kind: 'text',
	method: 'GET',
	path: (id) => `/v1/bank-accounts/${id}`,
	output: withoutAccountNumber,
});
