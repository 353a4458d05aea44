// Review #23: the pickers' list searches, their errors and what they send.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { DEFAULT_CREDENTIALS, runListSearch } from '../harness/n8n-core-harness.mjs';
import { resetNock } from '../support/api.mjs';

beforeEach(() => resetNock());
afterEach(() => resetNock());

const METHODS = { searchMails: '/v1/mails', searchScans: '/v1/scans', searchShipments: '/v1/shipments', searchAddresses: '/v1/addresses', searchBankAccounts: '/v1/bank-accounts' };

describe('list search errors', () => {
	for (const [method, path] of Object.entries(METHODS)) {
		for (const [status, body] of [[401, { error: { code: 'unauthorized', message: `bad key ${DEFAULT_CREDENTIALS.apiKey}` } }], [422, { error: { code: 'validation_error', message: 'cursor rejected' } }]]) {
			test(`${method}: a ${status} fails with a message, never the API key`, async () => {
				nock(DEFAULT_CREDENTIALS.baseUrl).get(path).query(true).reply(status, body);
				const error = await runListSearch({ method, filter: 'x', paginationToken: status === 422 ? 'tok' : undefined }).then(() => undefined, (e) => e);
				expect(error).toBeDefined();
				const text = JSON.stringify({ message: error.message, description: error.description, cause: String(error.cause?.message ?? '') });
				expect(text).not.toContain(DEFAULT_CREDENTIALS.apiKey);
				expect(error.message.length).toBeGreaterThan(0);
			});
		}
	}
});

describe('a filtered page that matches nothing on this page but more pages exist', () => {
	test('searchShipments with a filter: an empty page of results with a next token leaves the picker empty', async () => {
		// 50 shipments that do not match, then one that does on the next page.
		const page1 = { data: Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, type: 'shipment', status: 'in_progress', destination: { name: 'Alice' } })), next_cursor: 'c2' };
		const page2 = { data: [{ id: 'hit', type: 'shipment', status: 'in_progress', destination: { name: 'Bob Builder' } }], next_cursor: null };
		nock(DEFAULT_CREDENTIALS.baseUrl).get('/v1/shipments').query((q) => !q.cursor).reply(200, page1);
		nock(DEFAULT_CREDENTIALS.baseUrl).get('/v1/shipments').query((q) => q.cursor === 'c2').reply(200, page2);
		const first = await runListSearch({ method: 'searchShipments', filter: 'Bob' });
		// The editor asks for the next page only when the user scrolls a list: an empty first answer shows "No results".
		expect(first.results.map((r) => r.value)).toContain('hit');
	});
});
