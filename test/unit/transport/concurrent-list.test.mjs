// Mail → Get Many with Return All read concurrently: parts by filters, each from both ends, merged
// back in the API's order. The simulator is real HTTP on loopback (signed cursors bound to their
// query, the depth limit, faults), with a per-request delay so requests overlap as over a network.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rng } from '../../simulator/data.mjs';
import { dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const { planParts, RequestPool } = dist('nodes/shared/transport/index.js');
const { merge } = dist('nodes/shared/transport/concurrent.js');
const { MAIL_SPLITS } = dist('nodes/shared/mail.js');

const { sim, credentials, control, apiOrder } = await simulatorForFile({
	count: 3000,
	seed: 1,
	letterShare: 70,
});
const saved = { ...retryPolicy };
beforeAll(() => Object.assign(retryPolicy, { baseDelayMs: 20, maxDelayMs: 50, budgetMs: 5_000 }));
afterAll(() => Object.assign(retryPolicy, saved));

const getAll = (filters = {}, options = {}, extra = {}) => ({
	resource: 'mail',
	operation: 'getAll',
	returnAll: true,
	filters,
	options,
	...extra,
});
const ids = (items) => items.map((i) => i.json.id);
const mailRequests = () => sim.requests.filter((r) => r.path === '/v1/mails');
const run = async (parameters, more = {}) => {
	sim.requests.length = 0;
	return await runNode({ parameters, credentials, ...more });
};
/** The filters a request adds beyond the user's own. */
const added = (request, own = []) =>
	Object.keys(request.query).filter((k) => !['limit', 'cursor', 'sort', ...own].includes(k));

describe('a concurrent Return All returns exactly what a sequential read does', () => {
	for (const seed of [1, 2, 3]) {
		for (const sort of ['newest', 'oldest']) {
			test(`seed ${seed}, ${sort} first: same ids in the API's order, read in parts from both ends`, async () => {
				sim.reset({ count: 3000, seed, letterShare: 70 });
				const expected = await apiOrder(`sort=${sort}`);
				const { items, error } = await run(getAll({ sort }));
				expect(error).toBeUndefined();
				expect(ids(items)).toEqual(expected);
				const requests = mailRequests();
				// Divided by filters the user did not set, and read from both ends.
				expect(requests.some((r) => added(r).length > 0)).toBe(true);
				expect(new Set(requests.map((r) => r.query.sort?.[0]))).toEqual(
					new Set(['newest', 'oldest']),
				);
				// 30 pages of data; the whole's first page, and at most two more per part.
				const parts = new Set(
					requests
						.filter((r) => added(r).length > 0)
						.map((r) =>
							added(r)
								.map((k) => `${k}=${r.query[k]}`)
								.join('&'),
						),
				).size;
				expect(requests.length).toBeLessThanOrEqual(30 + 1 + 2 * parts);

				const sequential = await run(getAll({ sort }, { maxParallelRequests: 1 }));
				expect(ids(sequential.items)).toEqual(expected);
				expect(mailRequests()).toHaveLength(30);
			});
		}
	}

	test("the user's own filters stay on every request, and their values are divided, never widened", async () => {
		const expected = await apiOrder(
			'status=inbox&status=archived&mail_type=letter&mail_type=package&sort=newest',
		);
		const { items, error } = await run(
			getAll({ status: ['inbox', 'archived'], mailType: ['letter', 'package'] }),
		);
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected);
		for (const request of mailRequests()) {
			expect(request.query.status.every((s) => ['inbox', 'archived'].includes(s))).toBe(true);
			expect(request.query.mail_type.every((t) => ['letter', 'package'].includes(t))).toBe(true);
		}
	});

	test('a list of a few pages is read from both ends without dividing it', async () => {
		const expected = await apiOrder('arrived=half_year&sort=newest');
		expect(expected.length).toBeGreaterThan(400);
		const { items } = await run(getAll({ arrived: 'half_year' }));
		expect(ids(items)).toEqual(expected);
		expect(mailRequests().every((r) => added(r, ['arrived']).length === 0)).toBe(true);
		expect(mailRequests()).toHaveLength(Math.ceil(expected.length / 100));
	});

	test('Limit never starts parts: exactly ceil(N/100) requests, front to back', async () => {
		const { items } = await run(getAll({}, {}, { returnAll: false, limit: 250 }));
		expect(ids(items)).toEqual((await apiOrder('sort=newest')).slice(0, 250));
		expect(mailRequests()).toHaveLength(3);
		expect(
			mailRequests().every((r) => added(r).length === 0 && r.query.sort?.join() === 'newest'),
		).toBe(true);
	});
});

describe('items the divided read must not lose or misplace', () => {
	/** The item at `position` of the newest-first list, changed in the mailroom. */
	const edit = async (position, fields) => {
		const id = (await apiOrder('sort=newest'))[position];
		Object.assign(
			sim.db.mails.find((m) => m.id === id),
			fields,
		);
		sim.changed();
		return id;
	};

	test('an item whose status no Status filter value selects (shipped): every item comes back in order, and nothing is said to have changed', async () => {
		const shipped = await edit(1500, { mail_status: 'shipped' });
		const expected = await apiOrder('sort=newest');
		expect(expected).toContain(shipped);
		expect(
			await apiOrder(
				'sort=newest&status=inbox&status=archived&status=quarantine&status=discard_request',
			),
		).not.toContain(shipped);
		const { items, error } = await run(getAll());
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(expected);
		// divided by status at first; that division was found to leave the item out and dropped early
		const requests = mailRequests();
		expect(requests.some((r) => r.query.status)).toBe(true);
		expect(requests.length).toBeLessThanOrEqual(30 + 20);
	});

	test('an item whose status no Status filter value selects, in a list past 2 x the depth limit: every item once, in order', async () => {
		sim.reset({ count: 25_000, seed: 4, letterShare: 70 });
		await edit(12_345, { mail_status: 'shipped' });
		const { items, error } = await run(getAll());
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(await apiOrder('sort=newest'));
	});

	for (const sort of ['newest', 'oldest']) {
		test(`mail without an arrival date (null) stays where the API lists it, ${sort} first`, async () => {
			const undated = await edit(1200, { arrival_date: null });
			const expected = await apiOrder(`sort=${sort}`);
			expect(expected.indexOf(undated)).toBe(sort === 'newest' ? 0 : expected.length - 1);
			const { items, error } = await run(getAll({ sort }));
			expect(error).toBeUndefined();
			expect(mailRequests().some((r) => added(r).length > 0)).toBe(true); // read in parts and merged
			expect(ids(items)).toEqual(expected);
		});
	}
});

describe('an unchanged mailbox with values no filter selects and mail without dates, at random', () => {
	// Seeded: a failure names its seed; run that seed alone to replay it. Oracle: the simulator's
	// own filter and sort of the unchanged mailbox.
	for (const seed of [11, 12, 13, 14, 15, 16]) {
		test(`seed ${seed}: every item once, in the API's order, and never "the list changed"`, async () => {
			const random = rng(seed);
			const pick = (list) => list[Math.floor(random() * list.length)];
			sim.reset({ count: 1_600 + Math.floor(random() * 2_400), seed, letterShare: 70 });
			const odd = {
				mail_status: ['shipped', 'INBOX', 'returned'],
				mail_type: ['postcard', 'LETTER'],
				arrival_date: [null],
			};
			for (let k = 1 + Math.floor(random() * 5); k > 0; k--) {
				const field = pick(Object.keys(odd));
				pick(sim.db.mails)[field] = pick(odd[field]);
			}
			sim.changed();
			const sort = pick(['newest', 'oldest']);
			const options = { maxParallelRequests: pick([3, 6, 10]) };
			const { items, error } = await run(getAll({ sort }, options));
			expect(error?.message, `seed ${seed}`).toBeUndefined();
			expect(ids(items), `seed ${seed}`).toEqual(await apiOrder(`sort=${sort}`));
		});
	}
});

describe('bounded concurrency', () => {
	for (const max of [1, 3, 6]) {
		test(`Max Parallel Requests ${max}: never more requests in flight at the simulator`, async () => {
			sim.settings.latencyMs = 15;
			const { items } = await run(getAll({}, { maxParallelRequests: max }));
			expect(items).toHaveLength(3000);
			const peak = Math.max(...mailRequests().map((r) => r.inFlight));
			expect(peak).toBeLessThanOrEqual(max);
			expect(peak).toBeGreaterThanOrEqual(max === 1 ? 1 : max - 1);
		});
	}

	test('a value outside 1-10 fails before any request, naming the option', async () => {
		for (const bad of [0, 11, 2.5]) {
			const { error } = await run(getAll({}, { maxParallelRequests: bad }));
			expect(error.message).toMatch(/Max Parallel Requests must be a whole number from 1 to 10/);
		}
		expect(sim.requests).toHaveLength(0);
	});

	test('a 429 storm mid-run slows the whole run and still ends with every item once', async () => {
		// Long enough that the first requests overlap when the other test worker takes the CPU.
		sim.settings.latencyMs = 30;
		let seen = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/mails' && ++seen === 12)
				await control('/faults', { path: '/v1/mails', status: 429, count: 8, retryAfter: 0 });
		};
		// More attempts than the storm has 429s: no request can give up, whichever ones the 429s hit.
		retryPolicy.maxAttempts = 10;
		const { items, error } = await run(getAll()).finally(
			() => (retryPolicy.maxAttempts = saved.maxAttempts),
		);
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(await apiOrder('sort=newest'));
		// Before the storm 6 at once; after it the bound was halved (and halved again) and grows
		// back by one only after a run of successes.
		const requests = mailRequests();
		expect(Math.max(...requests.slice(0, 12).map((r) => r.inFlight))).toBeGreaterThanOrEqual(5);
		const lastThrottled = requests.findLastIndex((r) => r.status === 429);
		expect(lastThrottled).toBeGreaterThan(12);
		expect(
			Math.max(...requests.slice(lastThrottled + 6, lastThrottled + 16).map((r) => r.inFlight)),
		).toBeLessThanOrEqual(3);
	});
});

describe('failures and changes', () => {
	test('one part failing fails the run, names the part, returns nothing and leaves no request running', async () => {
		sim.settings.latencyMs = 10;
		await control('/faults', { path: '/v1/mails', query: 'sort=oldest', status: 403, count: 1 });
		const { items, error } = await run(getAll());
		expect(items).toHaveLength(0);
		expect(error.message).toMatch(/while reading the part (status|mail_type|scan_status|is_read)=/);
		const settled = sim.requests.length;
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(sim.requests.length).toBe(settled);
	});

	test("with Continue On Fail the failure is the item's output, not a partial list", async () => {
		await control('/faults', { path: '/v1/mails', query: 'sort=oldest', status: 403, count: 1 });
		const { items } = await run(getAll(), { continueOnFail: true });
		expect(items).toHaveLength(1);
		expect(items[0].json.error).toMatch(/while reading the part/);
	});

	test('mail arriving during the read: read once more, the result is the mailbox after the change', async () => {
		let seen = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/mails' && ++seen === 10)
				await control('/mail', { sender_name: 'Late Arrival Inc' });
		};
		const { items, error } = await run(getAll());
		expect(error).toBeUndefined();
		const expected = await apiOrder('sort=newest');
		expect(expected).toHaveLength(3001);
		expect(ids(items)).toEqual(expected);
	});

	test('an item moving between parts mid-read (archived): read once more, nothing missed or repeated', async () => {
		let seen = 0;
		const moved = (await apiOrder('sort=newest&status=inbox'))[0];
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/mails' && ++seen === 10) {
				await fetch(`${sim.url}/v1/mails/${moved}/archive`, {
					method: 'POST',
					headers: { authorization: `Bearer ${sim.apiKey}` },
				});
			}
		};
		const { items, error } = await run(getAll());
		expect(error).toBeUndefined();
		// the parts were divided by status, so the move crossed parts
		expect(mailRequests().some((r) => r.query.status?.join() === 'inbox')).toBe(true);
		expect(ids(items)).toEqual(await apiOrder('sort=newest'));
		expect(items.find((i) => i.json.id === moved).json.mail_status).toBe('archived');
		// the first read saw the change and a second one began with the whole's first page
		expect(
			mailRequests().filter(
				(r) =>
					Object.keys(r.query).sort().join() === 'limit,sort' && r.query.sort.join() === 'newest',
			),
		).toHaveLength(2);
	});

	test('a mailbox that keeps changing fails rather than return a list that may miss or repeat items', async () => {
		let seen = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/mails' && ++seen % 10 === 0)
				await control('/mail', { sender_name: 'Busy Mailroom' });
		};
		const { items, error } = await run(getAll());
		expect(items).toHaveLength(0);
		expect(error.message).toMatch(/The list changed while it was being read, twice/);
		// The advice holds whatever the settings: one page after another checks the same counts.
		expect(error.description).toMatch(
			/Run the node again when the mailbox is quieter, or narrow the query/,
		);
		expect(error.description).not.toMatch(/Max Parallel Requests/);
	});
});

describe('past the depth limit', () => {
	test('25,000 items: parts over 20,000 are divided again; every item once, in order', async () => {
		sim.reset({ count: 25_000, seed: 4, letterShare: 70 });
		const { items, error } = await run(getAll());
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(await apiOrder('sort=newest'));
		expect(mailRequests().length).toBeLessThanOrEqual(250 + 20);
	});

	test('mail arriving while a part past 20,000 is divided again: read once more, the result is the mailbox after the change', async () => {
		sim.reset({ count: 25_000, seed: 4, letterShare: 70 });
		let arrived = false;
		sim.settings.onRequest = async (record) => {
			// Two requests in flight read the list as one part: the first filtered request probes its division.
			if (record.path !== '/v1/mails' || !record.query.status || arrived) return;
			arrived = true;
			await control('/mail', { sender_name: 'Late Arrival Inc' });
		};
		const { items, error } = await run(getAll({}, { maxParallelRequests: 2 }));
		expect(arrived).toBe(true);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(25_001);
		expect(ids(items)).toEqual(await apiOrder('sort=newest'));
	});
});

describe('the pieces', () => {
	const sample = (n, shape) =>
		Array.from({ length: n }, (_, k) => ({ id: String(k), ...shape(k) }));

	test('planParts divides a skewed sample by the filters that split it evenly, grouping values', () => {
		// 70% letters, 55% inbox, 60% read: mail_type alone cannot halve it.
		const items = sample(100, (k) => ({
			mail_type: k < 70 ? 'letter' : 'package',
			mail_status: k % 20 < 11 ? 'inbox' : k % 20 < 18 ? 'archived' : 'quarantine',
			is_read: k % 5 < 3,
			scan: null,
		}));
		const parts = planParts({ status: [], mail_type: [] }, items, 10_000, MAIL_SPLITS, 4);
		expect(parts).toHaveLength(4);
		expect(parts.map((p) => p.estimate).reduce((a, b) => a + b)).toBeCloseTo(10_000, -1);
		expect(Math.max(...parts.map((p) => p.estimate))).toBeLessThanOrEqual(3_500);
		// status is grouped: inbox on one side, the rest on the other
		expect(parts[0].query.status).toEqual(['inbox']);
		expect(parts.at(-1).query.status).toEqual(['archived', 'quarantine', 'discard_request']);
	});

	test("planParts keeps the user's values, skips filters the user fixed, and ignores unknown values", () => {
		const items = sample(100, (k) => ({
			mail_type: k % 2 ? 'letter' : 'package',
			mail_status: 'INBOX',
			is_read: k % 3 === 0,
			scan: null,
		}));
		const parts = planParts(
			{ mail_type: ['letter', 'package'], is_read: 'true' },
			items,
			1_000,
			MAIL_SPLITS,
			2,
		);
		expect(parts.map((p) => p.query.mail_type)).toEqual([['letter'], ['package']]);
		expect(parts.every((p) => p.query.is_read === 'true')).toBe(true);
		const unknown = sample(100, () => ({
			mail_type: 'parcel_xl',
			mail_status: 'inbox',
			is_read: true,
			scan: null,
		}));
		expect(planParts({}, unknown, 1_000, MAIL_SPLITS, 4)).toHaveLength(1);
	});

	test('RequestPool: bound, biggest part first, and a 429 halves the bound and pauses everyone', async () => {
		const pool = new RequestPool(2);
		await pool.acquire();
		await pool.acquire();
		const order = [];
		const small = pool.acquire(() => 1).then(() => order.push('small'));
		const big = pool.acquire(() => 9).then(() => order.push('big'));
		pool.release();
		await big;
		expect(order).toEqual(['big']);
		pool.release();
		await small;
		expect(pool.peakInFlight).toBe(2);
		pool.release();
		pool.release();
		pool.throttled(60);
		expect(pool.currentLimit).toBe(1);
		const started = Date.now();
		await pool.acquire();
		expect(Date.now() - started).toBeGreaterThanOrEqual(50);
		pool.release();
		for (let k = 0; k < 2; k++) pool.succeeded();
		expect(pool.currentLimit).toBe(2);
	});

	test('merge keeps the order of lists each already sorted', () => {
		const order = (a, b) => a.t - b.t || Number(a.id) - Number(b.id);
		const lists = [
			[
				{ id: '1', t: 1 },
				{ id: '4', t: 4 },
			],
			[
				{ id: '2', t: 2 },
				{ id: '3', t: 2 },
			],
			[],
		];
		expect(merge(lists, order).map((x) => x.id)).toEqual(['1', '2', '3', '4']);
	});
});
