// One table format for operation cases, shared by every resource's test file: node parameters →
// the one request the node must send → the items it must output.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mockApi, resetNock } from '../../../support/api.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../../../harness/n8n-core-harness.mjs';

/** A fresh nock API mock for each test (`mock.api`); afterwards every expected request was made. */
export function useApiMock() {
	const mock = {};
	beforeEach(() => {
		resetNock();
		mock.api = mockApi();
	});
	afterEach(() => expect(mock.api.done()).toBe(true));
	return mock;
}

/**
 * Each case: `name`; `parameters` of the node; `request` as [method, path, body?, query?];
 * `reply` (the API's body) and `status` (200 unless given); `output`, the items' JSON (default:
 * the reply alone). The request must be the only one, carry the bearer key, and every output item
 * is paired to the input item.
 */
export function operationCases(title, mock, cases) {
	describe(title, () => {
		for (const c of cases) {
			test(c.name, async () => {
				const [method, path, body, query = {}] = c.request;
				mock.api.on(method, path, { status: c.status ?? 200, body: c.reply });
				const { items, error } = await runNode({ parameters: c.parameters });
				expect(error).toBeUndefined();
				expect(mock.api.requests).toHaveLength(1);
				const sent = mock.api.requests[0];
				expect(sent.method).toBe(method);
				expect(sent.path).toBe(path);
				expect(sent.query).toEqual(query);
				expect(sent.headers.authorization).toBe(`Bearer ${DEFAULT_CREDENTIALS.apiKey}`);
				if (body === undefined) expect(sent.body).toBeUndefined();
				else expect(sent.body).toEqual(body);
				expect(items.map((item) => item.json)).toEqual(c.output ?? [c.reply]);
				expect(items.every((item) => item.pairedItem?.item === 0)).toBe(true);
			});
		}
	});
}
