// Review #23: activation fails at once, with the how-to in the message, for each credential problem.
import { beforeEach, describe, expect, test } from 'vitest';
import { DEFAULT_CREDENTIALS, runHook } from '../harness/n8n-core-harness.mjs';
import { mockApi, resetNock } from '../support/api.mjs';

const params = { events: ['new-mail'], options: {} };
let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});
const activate = (credentials) => runHook({ parameters: params, method: 'create', credentials: { ...DEFAULT_CREDENTIALS, ...credentials } }).then(() => undefined, (e) => e);

describe('activation errors', () => {
	test('a Webhook Secret of only spaces is no secret: activation fails at once (the API Key check trims, this one does not)', async () => {
		api.on('GET', '/v1/account', { body: { id: 'acct' } });
		const error = await activate({ webhookSecret: '   ' });
		expect(error?.message).toMatch(/no Webhook Secret/);
		expect(api.requests).toHaveLength(0);
	});
	test('an empty custom Base URL fails at once, saying what to set, and never shows the key', async () => {
		const error = await activate({ baseUrl: '' });
		expect(error?.message).toMatch(/Base URL is empty: with Environment Custom, set it/);
		expect(error.message).not.toContain(DEFAULT_CREDENTIALS.apiKey);
	});
	test('a key without permission (403) fails with a how-to in the message, never the key', async () => {
		api.on('GET', '/v1/account', { status: 403, body: { error: { code: 'forbidden', message: 'Forbidden' } } });
		const error = await activate({});
		expect(error?.message).toMatch(/403|Forbidden|permission/i);
		expect(error.message).not.toContain(DEFAULT_CREDENTIALS.apiKey);
	});
});
