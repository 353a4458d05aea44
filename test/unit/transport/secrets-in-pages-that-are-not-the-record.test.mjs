// A success that is not the record is named by its first characters. A proxy or debugging page
// that echoes the request (its Authorization header, the body sent) must not carry the API key or
// a bank account number into the error: those never appear in errors (docs/development.md).
import { expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';

const env = await simulatorForFile({ count: 300, seed: 11 }, { fastRetries: true });

const shown = (error) =>
	JSON.stringify({
		message: error.message,
		description: error.description,
		context: error.context,
		cause: error.cause,
	});

test('a page echoing the Authorization header in place of Mail → Get names the page without the API key', async () => {
	const id = env.sim.db.mails[0].id;
	env.sim.quirks.add({
		kind: 'html',
		method: 'GET',
		path: `/v1/mails/${id}`,
		page: `Authorization: Bearer ${env.sim.apiKey} Host: api`,
	});
	const { items, error } = await runNode({
		parameters: { resource: 'mail', operation: 'get', mailId: id },
		credentials: env.credentials,
	});
	expect(items).toHaveLength(0);
	expect(error.message).toMatch(/not the JSON record expected: text\/html/);
	expect(error.message).toContain('Authorization: Bearer [redacted]');
	expect(shown(error)).not.toContain(env.sim.apiKey);
});

test('a page echoing the body sent in place of Bank Account → Create names the page without the account number', async () => {
	const accountNumber = '987654321012';
	env.sim.quirks.add({
		kind: 'html',
		method: 'POST',
		path: '/v1/bank-accounts',
		page: `echo: account_number=${accountNumber}&bank_name=Chase`,
	});
	const { items, error } = await runNode({
		parameters: {
			resource: 'bankAccount',
			operation: 'create',
			bankName: 'Chase',
			bankState: 'NY',
			accountNumber,
		},
		credentials: env.credentials,
	});
	expect(items).toHaveLength(0);
	expect(error.message).toMatch(/not the JSON record expected/);
	expect(error.message).toContain('account_number=[redacted]');
	expect(error.description).toMatch(/may already have acted on POST \/v1\/bank-accounts/);
	expect(shown(error)).not.toContain(accountNumber);
});

test('a JSON echo of the request in place of a page (no "data" list) fails Get Many without the API key anywhere in the error', async () => {
	env.sim.quirks.add({
		kind: 'transform',
		method: 'GET',
		path: /^\/v1\/mails$/,
		transform: () => ({ url: '/v1/mails', headers: { Authorization: `Bearer ${env.sim.apiKey}` } }),
	});
	const { items, error } = await runNode({
		parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: {} },
		credentials: env.credentials,
	});
	expect(items).toHaveLength(0);
	expect(error.message).toMatch(/GET \/v1\/mails.*no "data" list/);
	expect(
		JSON.stringify({ ...error, message: error.message, description: error.description }),
	).not.toContain(env.sim.apiKey);
});
