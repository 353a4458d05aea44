import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getId, requireChanges } from '../../../shared/validate';
import { apiRequest, segment } from '../../../shared/transport';
import { accountNumberField, bankAccountLocator, withoutAccountNumber } from './BankAccount.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('bankAccount', 'update', [
	bankAccountLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			accountNumberField,
			{ displayName: 'Bank Name', name: 'bankName', type: 'string', default: '' },
			{ displayName: 'Bank State', name: 'bankState', type: 'string', default: '' },
		],
	},
]);

const FIELDS: Array<[string, string, string]> = [
	['bankName', 'bank_name', 'Bank Name'],
	['bankState', 'bank_state', 'Bank State'],
	['accountNumber', 'account_number', 'Account Number'],
];

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'bankAccountId', i, 'Bank Account', 'text');
	const fields = this.getNodeParameter('updateFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	for (const [param, field, label] of FIELDS) {
		if (fields[param] === undefined) continue;
		const value = String(fields[param]).trim();
		if (value === '')
			throw new NodeOperationError(this.getNode(), `${label} cannot be empty`, { itemIndex: i });
		body[field] = value;
	}
	requireChanges.call(
		this,
		body,
		i,
		'Add Bank Name, Bank State or Account Number under Update Fields.',
	);
	const secrets = body.account_number ? [String(body.account_number)] : [];
	const updated = await apiRequest.call(this, 'PATCH', `/v1/bank-accounts/${segment(id)}`, {
		body,
		itemIndex: i,
		secrets,
	});
	return withoutAccountNumber(updated);
}
