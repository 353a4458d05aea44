// The router: items in, items out, pairing and Continue On Fail, for any operation.
import { describe, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../../../harness/n8n-core-harness.mjs';
import { useApiMock } from './cases.mjs';

const mock = useApiMock();

describe('items', () => {
	test('each input item runs once and outputs are paired to it', async () => {
		mock.api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		mock.api.on('GET', '/v1/mails/1002', { body: F.mailDetail(2) });
		const { items } = await runNode({
			parameters: { resource: 'mail', operation: 'get', mailId: '={{ $json.id }}' },
			items: [{ id: '1001' }, { id: '1002' }],
		});
		expect(items.map((i) => [i.json.id, i.pairedItem.item])).toEqual([
			['1001', 0],
			['1002', 1],
		]);
	});

	test('Continue On Fail: a failing item yields an error item and the others still run', async () => {
		mock.api.on('GET', '/v1/mails/1001', {
			status: 404,
			body: F.problem(404, { detail: 'No mail item 1001' }),
		});
		mock.api.on('GET', '/v1/mails/1002', { body: F.mailDetail(2) });
		const { items, error } = await runNode({
			parameters: { resource: 'mail', operation: 'get', mailId: '={{ $json.id }}' },
			items: [{ id: '1001' }, { id: 'abc' }, { id: '1002' }],
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json).toMatchObject({
			error: 'Not found: No mail item 1001',
			status: 404,
			code: 'not_found',
			requestId: 'req_404_abc',
		});
		expect(items[0].pairedItem.item).toBe(0);
		expect(items[1].json.error).toMatch(/Mail ID must be a numeric string/);
		expect(items[1].pairedItem.item).toBe(1);
		expect(items[2].json.id).toBe('1002');
		expect(items[2].pairedItem.item).toBe(2);
	});
});

test('credentials of the default harness point at the mock', () =>
	expect(DEFAULT_CREDENTIALS.environment).toBe('custom'));
