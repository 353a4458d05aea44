// Scan → Get Many has no filter to divide a query by: past the API's depth limit (10,000 items per
// query) Return All fails before fetching, with the counts, instead of returning part of the list.
import { beforeEach, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../../support/api.mjs';
import { runNode } from '../../../harness/n8n-core-harness.mjs';

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const scans = (count) => Array.from({ length: count }, (_, n) => F.scan(n + 1));

test('Return All of more scans than one query reaches fails after the first page, with the counts', async () => {
	const all = scans(10_001);
	api.serveList('/v1/scans', () => all);
	const { error, items } = await runNode({
		parameters: {
			resource: 'scan',
			operation: 'getAll',
			returnAll: true,
			filters: {},
			options: {},
		},
	});
	expect(items).toHaveLength(0);
	expect(error?.message).toMatch(/^10001 items match, but only 10000 can be reached/);
	expect(api.requests).toHaveLength(1);
});

test('Return All of exactly as many scans as one query reaches returns every one', async () => {
	const all = scans(10_000);
	api.serveList('/v1/scans', () => all);
	const { error, items } = await runNode({
		parameters: {
			resource: 'scan',
			operation: 'getAll',
			returnAll: true,
			filters: {},
			options: {},
		},
	});
	expect(error).toBeUndefined();
	expect(new Set(items.map((i) => i.json.id)).size).toBe(10_000);
});
