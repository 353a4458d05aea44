import { beforeEach, describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { MailItem } from '../../support/schemas.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { queryMails, MAIL_STATUSES, MAIL_TYPES } from '../../simulator/mail-query.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

// One page after another (Max Parallel Requests 1): the cursor walk and the depth-limit split
// themselves. The concurrent read is tested in concurrent-list.test.mjs.
const getAll = (extra = {}) => ({
	resource: 'mail',
	operation: 'getAll',
	returnAll: true,
	filters: {},
	options: { maxParallelRequests: 1 },
	...extra,
});
const ids = (items) => items.map((i) => i.json.id);
const cursors = () => api.requests.map((r) => r.query.cursor?.[0] ?? null);

describe('cursor pagination', () => {
	test('Return All walks every page at 100 per page and outputs every item once, in order', async () => {
		const mails = F.bulkMail(250);
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error).toBeUndefined();
		expect(api.requests).toHaveLength(3);
		expect(api.requests.every((r) => r.query.limit[0] === '100')).toBe(true);
		expect(cursors()[0]).toBeNull();
		expect(new Set(cursors().slice(1)).size).toBe(2);
		expect(ids(items)).toEqual(queryMails(mails, new URLSearchParams()).map((m) => m.id));
	});

	test('10,000 items take exactly 100 requests', async () => {
		const mails = F.bulkMail(10_000);
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items } = await runNode({ parameters: getAll() });
		expect(api.requests).toHaveLength(100);
		expect(items).toHaveLength(10_000);
		expect(new Set(ids(items)).size).toBe(10_000);
	});

	test('a Return All of many pages loads the credential once, and every page still carries the key', async () => {
		const mails = F.bulkMail(250);
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, credentialLoads } = await runNode({ parameters: getAll() });
		expect(items).toHaveLength(250);
		expect(api.requests).toHaveLength(3);
		// In n8n each load is a database query and a decryption; without handing n8n the credential
		// already read, it would load it once more for every page.
		expect(credentialLoads).toBe(1);
		for (const request of api.requests)
			expect(request.headers.authorization).toBe('Bearer test_sk_0123456789abcdef');
	});

	test('Limit below a page asks for exactly that many in one request', async () => {
		api.serveList('/v1/mails', (params) => queryMails(F.bulkMail(250), params));
		const { items } = await runNode({ parameters: getAll({ returnAll: false, limit: 30 }) });
		expect(api.requests).toHaveLength(1);
		expect(api.requests[0].query.limit).toEqual(['30']);
		expect(items).toHaveLength(30);
	});

	test('Limit mid-page stops at the limit with the same page size on every page', async () => {
		api.serveList('/v1/mails', (params) => queryMails(F.bulkMail(250), params));
		const { items } = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }) });
		expect(api.requests.map((r) => r.query.limit[0])).toEqual(['100', '100']);
		expect(items).toHaveLength(150);
	});

	test('a null cursor ends the list', async () => {
		api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, [F.mail(1), F.mail(2)], null, 2) });
		const { items } = await runNode({ parameters: getAll() });
		expect(api.requests).toHaveLength(1);
		expect(items).toHaveLength(2);
	});

	test('a repeated cursor fails instead of looping forever', async () => {
		api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, [F.mail(1)], 'same', 5) });
		api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, [F.mail(2)], 'same', 5) });
		const { error } = await runNode({ parameters: getAll() });
		expect(error.message).toMatch(/returned a cursor it had already returned/);
		expect(api.requests).toHaveLength(2);
	});

	test('a 422 on a cursor explains that the cursor was rejected', async () => {
		api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, [F.mail(1)], 'c2', 5) });
		api.on('GET', '/v1/mails', {
			status: 422,
			body: F.problem(422, {
				detail: 'The cursor was issued for a different query',
				errors: [{ field: 'cursor', message: 'mismatch' }],
			}),
		});
		const { error } = await runNode({ parameters: getAll() });
		expect(error.message).toMatch(/rejected the pagination cursor/);
		expect(error.description).toMatch(/cursor: mismatch/);
		expect(error.description).toMatch(/request_id req_422_abc/);
	});

	test('the cursor is always sent with the query it came from (the simulator rejects anything else)', async () => {
		const mails = F.bulkMail(350, (n) => ({ mail_type: n % 3 ? 'letter' : 'package' }));
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, error } = await runNode({
			parameters: getAll({ filters: { mailType: ['package'], search: 'sender' } }),
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(117);
		const bound = api.requests.map((r) => r.search.replace(/&?(cursor|limit)=[^&]*/g, ''));
		expect(new Set(bound).size).toBe(1);
	});
});

describe('the 10,000-item depth limit is never silent', () => {
	test('Return All splits by status, proves the parts add up, and returns every item once', async () => {
		const sizes = { inbox: 9000, archived: 8000, quarantine: 5000, discard_request: 3000 };
		const statuses = Object.entries(sizes).flatMap(([status, count]) => Array(count).fill(status));
		const mails = F.bulkMail(statuses.length, (n) => ({ mail_status: statuses[n] }));
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(25_000);
		expect(new Set(ids(items)).size).toBe(25_000);
		// newest first across parts
		const times = items.map((i) => Date.parse(i.json.arrival_date));
		expect(times.every((t, k) => k === 0 || times[k - 1] >= t)).toBe(true);
		// 1 whole + 4 part probes (each also a first page) + remaining pages; minimum is 250
		expect(api.requests).toHaveLength(1 + 250);
		const partQueries = api.requests.slice(1, 5).map((r) => r.query.status);
		expect(partQueries).toEqual(MAIL_STATUSES.map((s) => [s]));
	});

	test('a part still too deep is split again by mail type', async () => {
		const mails = F.bulkMail(22_000, (n) => ({
			mail_status: n < 15_000 ? 'inbox' : 'archived',
			mail_type: MAIL_TYPES[n % 3],
		}));
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error).toBeUndefined();
		expect(new Set(ids(items)).size).toBe(22_000);
		const inboxParts = api.requests.filter(
			(r) => r.query.status?.[0] === 'inbox' && r.query.mail_type && !r.query.cursor,
		);
		expect(inboxParts.map((r) => r.query.mail_type[0])).toEqual(MAIL_TYPES);
	});

	test("the user's own filter values are split, not widened", async () => {
		const mails = F.bulkMail(14_000, (n) => ({ mail_type: n % 2 ? 'letter' : 'package' }));
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items } = await runNode({
			parameters: getAll({ filters: { mailType: ['letter', 'package'], status: ['inbox'] } }),
		});
		expect(items).toHaveLength(14_000);
		const probes = api.requests.filter((r) => !r.query.cursor).slice(1);
		expect(probes.map((r) => r.query.mail_type)).toEqual([['letter'], ['package']]);
		expect(probes.every((r) => r.query.status?.join() === 'inbox')).toBe(true);
	});

	test('when no split reaches every item it fails before fetching, with the counts and the filter to narrow', async () => {
		const mails = F.bulkMail(30_000);
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { error, items } = await runNode({ parameters: getAll() });
		expect(items).toHaveLength(0);
		expect(error.message).toMatch(/30000 items match, but only 10000 can be reached/);
		expect(error.description).toMatch(/Arrived, Folder or Search/);
		// probes only: 1 whole + 4 statuses + 9 types (inbox) + 7 scan statuses (letter) + 2 read states (none)
		expect(api.requests).toHaveLength(1 + 4 + 9 + 7 + 2);
		expect(api.requests.some((r) => r.query.cursor)).toBe(false);
	});

	test('parts by a filter that leave items out of an unchanged list: the next filter divides it, every item once', async () => {
		// One item whose status no Status filter value selects: the parts by status miss it.
		const mails = F.bulkMail(12_000, (n) => ({
			mail_status: n === 7_000 ? 'shipped' : MAIL_STATUSES[n % 2],
			mail_type: MAIL_TYPES[n % 2],
		}));
		api.serveList('/v1/mails', (params) => queryMails(mails, params));
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(queryMails(mails, new URLSearchParams()).map((m) => m.id));
		const probes = api.requests
			.filter((r) => !r.query.cursor)
			.map((r) =>
				Object.keys(r.query)
					.filter((k) => k !== 'limit' && k !== 'sort')
					.join(),
			);
		// the whole, the parts by status, the whole again (unchanged), then the parts by mail type
		expect(probes).toEqual([
			'',
			...MAIL_STATUSES.map(() => 'status'),
			'',
			...MAIL_TYPES.map(() => 'mail_type'),
		]);
	});

	test('parts that do not add up because the list changed are read once more: the list as it is now, whole', async () => {
		const mails = F.bulkMail(12_000, (n) => ({ mail_status: MAIL_STATUSES[n % 2] }));
		const late = {
			...F.bulkMail(1)[0],
			id: '999999',
			mail_status: 'archived',
			arrival_date: '2030-01-01T00:00:00Z',
		};
		let arrived = false;
		api.serveList('/v1/mails', (params) => {
			// mail arrives right after the whole's first page
			const result = queryMails(arrived ? [late, ...mails] : mails, params);
			arrived = true;
			return result;
		});
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.id)).toEqual(
			queryMails([late, ...mails], new URLSearchParams('sort=newest')).map((m) => m.id),
		);
	});

	test('parts that keep not adding up because the list keeps changing fail instead of returning a partial list', async () => {
		const mails = F.bulkMail(12_000, (n) => ({ mail_status: MAIL_STATUSES[n % 2] }));
		let firstPages = 0;
		api.serveList('/v1/mails', (params) => {
			// mail arrives after every first page of the whole list
			const unfiltered = !params.has('cursor') && !params.has('status');
			const result = queryMails(mails, params);
			if (unfiltered)
				mails.unshift({
					...F.bulkMail(1)[0],
					id: String(900_000 + ++firstPages),
					mail_status: 'archived',
				});
			return result;
		});
		const { items, error } = await runNode({ parameters: getAll() });
		expect(items).toHaveLength(0);
		expect(error.message).toMatch(
			/The list changed while it was being read, twice: 1200\d items matched when the read began, then 1200\d/,
		);
	});

	test('Limit within the first 10,000 never splits', async () => {
		api.serveList('/v1/mails', (params) => queryMails(F.bulkMail(12_000), params));
		const { items } = await runNode({ parameters: getAll({ returnAll: false, limit: 250 }) });
		expect(items).toHaveLength(250);
		expect(api.requests).toHaveLength(3);
	});
});

describe('other paginated lists', () => {
	test('bank accounts Return All pages through and never outputs a full account number', async () => {
		const accounts = Array.from({ length: 130 }, (_, n) => F.bankAccount(n));
		api.serveList('/v1/bank-accounts', () =>
			accounts.map((a) => ({ ...a, account_number: '000123456789' })),
		);
		const { items } = await runNode({
			parameters: { resource: 'bankAccount', operation: 'getAll', returnAll: true },
		});
		expect(items).toHaveLength(130);
		expect(api.requests).toHaveLength(2);
		expect(JSON.stringify(items)).not.toContain('000123456789');
	});
});
