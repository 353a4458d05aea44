// Review #24: README: "a Return All of more than one page is read a second time". A list of exactly
// one full page (100 items, total_count 100) is one page, yet listPaginated's shortcut
// (items.length < PAGE_SIZE_MAX) reads it again.
import { describe, expect, test } from 'vitest';
import * as F from '../support/fixtures.mjs';
import { runNode } from '../harness/n8n-core-harness.mjs';
import { useApiMock } from './operations/cases.mjs';

const mock = useApiMock();

describe('review #24: one-page lists are not re-read', () => {
	test('scan getAll Return All of exactly 100 scans (one page): one request', async () => {
		const scans = Array.from({ length: 100 }, (_, n) => F.scan(n + 1));
		mock.api.serveList('/v1/scans', () => scans);
		const { items } = await runNode({ parameters: { resource: 'scan', operation: 'getAll', returnAll: true } });
		expect(items).toHaveLength(100);
		// the same first page twice (not a second page): the confirming read of a one-page list
		expect(mock.api.requests.map((r) => r.search)).toHaveLength(1);
	});
});
