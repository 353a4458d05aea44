import { byIdOperation, deleted } from '../../../shared/byId';
import { bankAccountLocator, withoutAccountNumber } from './BankAccount.fields';

export const { description, execute } = byIdOperation({
	resource: 'bankAccount',
	operation: 'delete',
	field: bankAccountLocator,
	label: 'Bank Account',
	kind: 'text',
	method: 'DELETE',
	path: (id) => `/v1/bank-accounts/${id}`,
	empty: deleted,
	output: withoutAccountNumber,
});
