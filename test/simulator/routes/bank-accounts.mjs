// Bank accounts for check deposits: the full number is write-only, answers carry its last 4 digits.
import { paginate } from '../paging.mjs';
import { fail, optionalStrings, requireFields } from '../problems.mjs';

const checkNumber = (number) => {
	if (!/^\d{4,17}$/.test(number))
		throw fail(422, 'account_number must be 4 to 17 digits', [
			{ field: 'account_number', message: 'must be 4 to 17 digits' },
		]);
};

export default function bankAccountRoutes(route, { mailbox }) {
	const db = () => mailbox.db;
	const out = (account) => mailbox.bankOut(account);
	route('POST', '/v1/bank-accounts', ({ body }) => {
		requireFields(body, ['bank_name', 'bank_state', 'account_number']);
		checkNumber(body.account_number);
		const account = {
			id: mailbox.newUuid(),
			bank_name: body.bank_name,
			bank_state: body.bank_state,
			account_number: body.account_number,
		};
		db().bankAccounts.push(account);
		return [201, out(account)];
	});
	route('GET', '/v1/bank-accounts', ({ params }) =>
		paginate('/v1/bank-accounts', params, db().bankAccounts.map(out)),
	);
	route('GET', '/v1/bank-accounts/{id}', ({ id }) =>
		out(mailbox.find(db().bankAccounts, id, 'bank account')),
	);
	route('PATCH', '/v1/bank-accounts/{id}', ({ id, body }) => {
		const account = mailbox.find(db().bankAccounts, id, 'bank account');
		optionalStrings(body, ['bank_name', 'bank_state', 'account_number']);
		if (body.account_number !== undefined) checkNumber(body.account_number);
		for (const field of ['bank_name', 'bank_state', 'account_number'])
			if (body[field] !== undefined) account[field] = body[field];
		return out(account);
	});
	route('DELETE', '/v1/bank-accounts/{id}', ({ id }) => {
		mailbox.find(db().bankAccounts, id, 'bank account');
		db().bankAccounts = db().bankAccounts.filter((a) => a.id !== id);
		return [204, undefined];
	});
}
