// Return All and Limit against lists the spec allows: values no filter value selects, an API that
// breaks arrival-date ties its own way, lists that change while they are read. Each test drives
// the built node through n8n's execution code (test/harness) against the simulator (real HTTP) or
// a spec-conforming mock of the API, and asserts requests and outputs.
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { queryMails } from '../../simulator/mail-query.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

/** A simulated mailbox of `count` items, seven in ten of them letters. */
const mailbox = (count) => ({ count, seed: 7, letterShare: 70 });
const { sim, credentials, apiOrder } = await simulatorForFile(mailbox(3000));
const ids = (items) => items.map((i) => i.json.id);
const requestsTo = (path) => sim.requests.filter((r) => r.path === path).length;
const getAll = (filters = {}, options = {}, extra = {}) => ({
	resource: 'mail',
	operation: 'getAll',
	returnAll: true,
	filters,
	options,
	...extra,
});
/** A request to the simulator's API with the credential's key. */
const callApi = (path, method = 'GET') =>
	fetch(`${sim.url}${path}`, { method, headers: { authorization: `Bearer ${sim.apiKey}` } });
const run = async (parameters) => {
	sim.requests.length = 0;
	return await runNode({ parameters, credentials });
};
/** The item at `position` of the newest-first list, changed in the mailroom (an unchanged list from then on). */
const edit = async (position, fields) => {
	const id = (await apiOrder('sort=newest'))[position];
	Object.assign(
		sim.db.mails.find((m) => m.id === id),
		fields,
	);
	sim.changed();
	return id;
};
/**
 * Return All over a mailbox of `count` items with the items at these newest-first positions
 * changed: no error and every item in the API's order. Resolves to the list requests it made.
 */
const readEveryItem = async (count, changes, options = {}) => {
	sim.reset(mailbox(count));
	for (const [position, fields] of changes) await edit(position, fields);
	const expected = await apiOrder('sort=newest');
	const { items, error } = await run(getAll({}, options));
	expect(error).toBeUndefined();
	expect(ids(items)).toEqual(expected);
	return requestsTo('/v1/mails');
};

describe('request counts stay within ceil(N/100) + a few for mailboxes the spec allows', () => {
	test('2,345 mail items, one of them with a status no Status filter value selects: every item in at most 30 requests', async () => {
		const requests = await readEveryItem(2_345, [[700, { mail_status: 'shipped' }]]);
		// An unchanged list of 2,345 takes at most 27 (24 pages and the first pages of 3 parts). The
		// division by status leaves the item out; finding that out costs its parts' first pages (3),
		// asked before any other page, and nothing else is read again.
		expect(requests).toBeLessThanOrEqual(27 + 3);
	});

	test('10,000 mail items, one of them with a mail type no Mail Type filter value selects: every item in at most 110 requests', async () => {
		expect(await readEveryItem(10_000, [[5_000, { mail_type: 'postcard' }]])).toBeLessThanOrEqual(
			110,
		);
	});

	test('12,000 mail items (past the depth limit), one of them with a status no Status filter value selects: every item in at most 130 requests', async () => {
		expect(await readEveryItem(12_000, [[100, { mail_status: 'shipped' }]])).toBeLessThanOrEqual(
			120 + 10,
		);
	});

	for (const [count, maxParallelRequests] of [
		[6_000, undefined],
		[12_000, 3],
	]) {
		test(`${count.toLocaleString('en-US')} mail items, one with a status and one with a mail type no filter value selects, Max Parallel Requests ${maxParallelRequests ?? '6 (default)'}: every item in at most ${count / 100 + 11} requests`, async () => {
			const changes = [
				[1_000, { mail_status: 'shipped' }],
				[2_000, { mail_type: 'postcard' }],
			];
			const requests = await readEveryItem(
				count,
				changes,
				maxParallelRequests ? { maxParallelRequests } : {},
			);
			// +1 where a read's two ends meet exactly at its count (a round count): one page more
			// shows they touch, so a count smaller than the list cannot leave items between them.
			expect(requests).toBeLessThanOrEqual(count / 100 + 11);
		});
	}

	test('Limit 10,500 of a 25,000-item mailbox asks for no more than it needs: ceil(10,500/100) pages plus one first page per part it divides into', async () => {
		sim.reset(mailbox(25_000));
		const expected = (await apiOrder('sort=newest')).slice(0, 10_500);
		const { items, error } = await run(getAll({}, {}, { returnAll: false, limit: 10_500 }));
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected);
		// Every request without a cursor is a first page (the whole's, or a part's probe); each may be
		// read only in part. Beyond those, the 10,500 items take 105 pages.
		const firstPages = sim.requests.filter((r) => r.path === '/v1/mails' && !r.query.cursor).length;
		expect(requestsTo('/v1/mails')).toBeLessThanOrEqual(105 + firstPages);
	});
});

describe('a list that changes while it is read one page after another', () => {
	/**
	 * Status = Inbox: once the read is 3 pages in, the newest inbox item (already read) is archived.
	 * The inbox's total_count drops by one, and every item after it moves up one position.
	 */
	async function archiveNewestInboxItemDuringRead(parameters, path = '/v1/mails') {
		const inbox = await apiOrder('status=inbox&sort=newest');
		expect(inbox.length).toBeGreaterThan(500);
		const leaving = inbox[0];
		let pages = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path === path && ++pages === 3) {
				await callApi(`/v1/mails/${leaving}/archive`, 'POST');
			}
		};
		const result = await run(parameters);
		sim.settings.onRequest = undefined;
		const stayed = inbox.filter((id) => id !== leaving);
		return { ...result, missing: stayed.filter((id) => !ids(result.items).includes(id)) };
	}

	test('Max Parallel Requests 1, Status = Inbox, an item archived mid-read (total_count changes between pages): never an inbox short of an item that stayed in it, without an error', async () => {
		const { error, missing } = await archiveNewestInboxItemDuringRead(
			getAll({ status: ['inbox'] }, { maxParallelRequests: 1 }),
		);
		// Either the change is reported (the counts saw it: every page must report its first page's
		// count), or nothing that stayed is missing.
		if (!error) expect(missing).toEqual([]);
		else expect(error.message).toMatch(/changed/);
	});

	test('a busy inbox read in parallel or one page after another: the same failure, never a silently incomplete list, and advice that holds for both', async () => {
		// A mailroom archiving the newest inbox item every 8 requests (someone working the inbox).
		const busy = () => {
			let seen = 0;
			sim.settings.onRequest = async (record) => {
				if (record.path !== '/v1/mails' || ++seen % 8 !== 0) return;
				const [newest] = await apiOrder('status=inbox&sort=newest');
				await callApi(`/v1/mails/${newest}/archive`, 'POST');
			};
		};
		sim.reset(mailbox(6_000));
		busy();
		const parallel = await run(getAll({ status: ['inbox'] }));
		expect(parallel.error?.message).toMatch(/The list changed while it was being read, twice/);
		// No setting is offered as a way around it: one page after another sees the same changes.
		expect(parallel.error.description).not.toMatch(/Max Parallel Requests/);

		sim.reset(mailbox(6_000));
		const before = await apiOrder('status=inbox&sort=newest');
		busy();
		const sequential = await run(getAll({ status: ['inbox'] }, { maxParallelRequests: 1 }));
		sim.settings.onRequest = undefined;
		const after = new Set(await apiOrder('status=inbox&sort=newest'));
		const stayedThroughout = before.filter((id) => after.has(id));
		const missing = stayedThroughout.filter((id) => !ids(sequential.items).includes(id));
		if (!sequential.error) expect(missing).toEqual([]);
		else
			expect(sequential.error.message).toMatch(/The list changed while it was being read, twice/);
	});

	test('Scan → Get Many (read one page after another), a completed scan deleted mid-read: never the completed scans short of one that stayed, without an error', async () => {
		const completed = await (await callApi('/v1/scans?status=completed&limit=100')).json();
		expect(completed.total_count).toBeGreaterThan(300);
		const all = [];
		for (let cursor; ; ) {
			const page = await (
				await callApi(`/v1/scans?status=completed&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
			).json();
			all.push(...page.data.map((s) => s.id));
			if (!(cursor = page.next_cursor)) break;
		}
		const leaving = all[0];
		let pages = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/scans' && record.method === 'GET' && ++pages === 2) {
				await callApi(`/v1/scans/${leaving}`, 'DELETE');
			}
		};
		const { items, error } = await run({
			resource: 'scan',
			operation: 'getAll',
			returnAll: true,
			filters: { status: ['completed'] },
			options: {},
		});
		sim.settings.onRequest = undefined;
		const got = new Set(ids(items));
		const missing = all.filter((id) => id !== leaving && !got.has(id));
		if (!error) expect(missing).toEqual([]);
		else expect(error.message).toMatch(/changed/);
	});
});

/** For the describe it is called in: nock on, and a fresh spec-conforming mock of the API before each test. */
function mockApiPerTest() {
	const mock = { api: undefined };
	beforeEach(() => {
		resetNock();
		if (!nock.isActive()) nock.activate();
		mock.api = mockApi();
	});
	afterAll(() => {
		nock.cleanAll();
		if (nock.isActive()) nock.restore();
	});
	return mock;
}

describe('an API that orders same-instant arrivals by id ascending in both sorts (the spec leaves ties unspecified)', () => {
	const mock = mockApiPerTest();

	// 3,000 items, 30 arriving at the same instant each day (a mailroom logging a day's mail at once).
	const mails = F.bulkMail(3_000, (n) => ({
		arrival_date: new Date(Date.UTC(2026, 0, 1) + Math.floor(n / 30) * 86_400_000).toISOString(),
		mail_status: ['inbox', 'archived', 'quarantine', 'discard_request'][n % 4],
		mail_type: n % 3 ? 'letter' : 'package',
		is_read: n % 5 < 3,
	}));
	/** The API: filters as the simulator, arrival date in the asked direction, ties by id ascending. */
	const list = (params) => {
		const dir = params.get('sort') === 'oldest' ? 1 : -1;
		return queryMails(mails, params).sort(
			(a, b) =>
				dir * (Date.parse(a.arrival_date) - Date.parse(b.arrival_date)) ||
				Number(a.id) - Number(b.id),
		);
	};

	test('an unchanged list with same-instant arrivals that the API orders by id ascending in both sorts: exactly what the API lists, in its order, never "the list changed"', async () => {
		mock.api.serveList('/v1/mails', list);
		const expected = list(new URLSearchParams()).map((m) => m.id);
		const { items, error } = await runNode({ parameters: getAll() });
		expect(error?.message).toBeUndefined();
		expect(ids(items)).toEqual(expected);
	});
});

describe('an API whose order without a sort parameter is oldest first (the spec names no default sort)', () => {
	const mock = mockApiPerTest();

	const mails = F.bulkMail(560, (n) => ({
		mail_status: ['inbox', 'archived'][n % 2],
		mail_type: n % 3 ? 'letter' : 'package',
		is_read: n % 5 < 3,
	}));
	/** The API: a request without `sort` lists oldest first; `sort` is honoured when sent. */
	const list = (params) => {
		const asked = new URLSearchParams(params);
		if (!asked.has('sort')) asked.set('sort', 'oldest');
		return queryMails(mails, asked);
	};

	test('Return All without the Sort filter, an unchanged list of 6 pages: every item once, never "the list changed", and the same list as one page after another', async () => {
		mock.api.serveList('/v1/mails', list);
		const sequential = await runNode({ parameters: getAll({}, { maxParallelRequests: 1 }) });
		expect(sequential.error).toBeUndefined();
		expect(ids(sequential.items)).toHaveLength(560);
		const parallel = await runNode({ parameters: getAll() });
		expect(parallel.error?.message).toBeUndefined();
		expect(ids(parallel.items)).toEqual(ids(sequential.items));
	});
});
