// A list read while it changes, and what Return All does about it. The API's cursors count
// positions: when one item leaves the list above the read position and another enters below it,
// every total_count stays the same, and the item pushed across the next page boundary is never
// read. By default a list is read once (counts checked); Confirm List Unchanged reads a list of
// more than one page a second time and returns it only when both reads agree.
import { describe, expect, test } from 'vitest';
import { dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sameItems } = dist('nodes/shared/transport/pagination.js');

const { sim, credentials, apiOrder } = await simulatorForFile({
	count: 3000,
	seed: 24,
	letterShare: 70,
});
const act = (id, action) =>
	fetch(`${sim.url}/v1/mails/${id}/${action}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sim.apiKey}` },
	});
const inboxRequests = () =>
	sim.requests.filter((r) => r.path === '/v1/mails' && r.query.status?.join() === 'inbox');

/**
 * Status = Inbox, Return All. Once the read is `afterPages` pages in, the newest inbox item (read
 * on the first page) is archived and an archived item from the middle of the inbox's dates is
 * unarchived: the inbox's count is unchanged.
 */
async function readWhileOneLeavesAboveAndOneEntersBelow(options) {
	const inboxBefore = await apiOrder('status=inbox&sort=newest');
	const archived = await apiOrder('status=archived&sort=newest');
	expect(inboxBefore.length).toBeGreaterThan(500); // several pages
	const leaving = inboxBefore[0];
	const entering = archived[Math.floor(archived.length / 2)];
	let pages = 0;
	sim.settings.onRequest = async (record) => {
		if (record.path === '/v1/mails' && record.query.status?.join() === 'inbox' && ++pages === 3) {
			await act(leaving, 'archive');
			await act(entering, 'unarchive');
		}
	};
	sim.requests.length = 0;
	const { items, error } = await runNode({
		parameters: {
			resource: 'mail',
			operation: 'getAll',
			returnAll: true,
			filters: { status: ['inbox'] },
			options,
		},
		credentials,
	});
	sim.settings.onRequest = undefined;
	const inboxAfter = await apiOrder('status=inbox&sort=newest');
	expect(inboxAfter.length).toBe(inboxBefore.length); // the counts cannot see this change
	const stayed = inboxBefore.filter((id) => id !== leaving);
	return {
		ids: (items ?? []).map((i) => i.json.id),
		error,
		stayed,
		inboxAfter,
		requests: inboxRequests().length,
		pagesPerRead: Math.ceil(inboxBefore.length / 100),
	};
}

describe('by default Return All reads a list once', () => {
	for (const [count, most] of [
		[2_345, 27],
		[10_000, 110],
	]) {
		test(`${count} items: every item in the API's order in at most ${most} requests, and exactly ${Math.ceil(count / 100)} one page after another`, async () => {
			await sim.reset({ count, seed: 24, letterShare: 70 });
			const expected = await apiOrder('sort=newest');
			for (const [options, requests] of [
				[{}, most],
				[{ maxParallelRequests: 1 }, Math.ceil(count / 100)],
			]) {
				sim.requests.length = 0;
				const { items, error } = await runNode({
					parameters: { resource: 'mail', operation: 'getAll', returnAll: true, options },
					credentials,
				});
				expect(error).toBeUndefined();
				expect(items.map((i) => i.json.id)).toEqual(expected);
				const made = sim.requests.filter((r) => r.path === '/v1/mails').length;
				if (options.maxParallelRequests === 1) expect(made).toBe(requests);
				else expect(made).toBeLessThanOrEqual(requests);
			}
		});
	}

	test('one item archived above the read position while another is unarchived below it: the counts cannot see it, and the item pushed across a page boundary can be missed', async () => {
		const run = await readWhileOneLeavesAboveAndOneEntersBelow({ maxParallelRequests: 1 });
		expect(run.error).toBeUndefined();
		expect(run.requests).toBe(run.pagesPerRead);
		// what Confirm List Unchanged is for: an item that stayed in the inbox throughout is missing
		expect(run.stayed.filter((id) => !run.ids.includes(id))).toHaveLength(1);
	});

	test('every list that can take several pages offers Confirm List Unchanged, off by default, and reads twice with it on', async () => {
		// more than one page of each (the simulator's lists, copied under new ids)
		const grow = (list, idOf, extra = {}) => {
			const base = [...list];
			for (let k = 0; list.length < 130; k++)
				list.push({ ...base[k % base.length], id: idOf(k), ...extra });
		};
		grow(sim.db.shipments, (k) => `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`);
		grow(sim.db.addresses, (k) => `00000000-0000-4000-9000-${String(k).padStart(12, '0')}`, {
			is_default: false,
		});
		grow(sim.db.bankAccounts, (k) => `00000000-0000-4000-a000-${String(k).padStart(12, '0')}`);
		sim.changed();
		const lists = {
			mail: '/v1/mails',
			scan: '/v1/scans',
			shipment: '/v1/shipments',
			address: '/v1/addresses',
			bankAccount: '/v1/bank-accounts',
		};
		for (const [resource, path] of Object.entries(lists)) {
			const counts = [];
			for (const confirm of [undefined, false, true]) {
				sim.requests.length = 0;
				const options = {
					maxParallelRequests: resource === 'mail' ? 1 : undefined,
					confirmListUnchanged: confirm,
				};
				for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
				const filters =
					resource === 'scan'
						? { scanned: 'year' }
						: resource === 'mail'
							? { arrived: 'year' }
							: {};
				const { items, error } = await runNode({
					parameters: { resource, operation: 'getAll', returnAll: true, filters, options },
					credentials,
				});
				expect(error, `${resource}`).toBeUndefined();
				expect(items.length, resource).toBeGreaterThan(100);
				counts.push(sim.requests.filter((r) => r.path === path).length);
			}
			expect(counts[0], resource).toBeGreaterThanOrEqual(2);
			expect(counts, resource).toEqual([counts[0], counts[0], 2 * counts[0]]);
		}
	});
});

describe('with Confirm List Unchanged, Return All with Status = Inbox while one item is archived above the read position and another unarchived below it', () => {
	test('one page after another (Max Parallel Requests 1): every item that stayed in the inbox is returned; the result is the inbox after the change', async () => {
		const run = await readWhileOneLeavesAboveAndOneEntersBelow({
			maxParallelRequests: 1,
			confirmListUnchanged: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.stayed.filter((id) => !run.ids.includes(id))).toEqual([]);
		expect(run.ids).toEqual(run.inboxAfter);
		// the cost: the first read, a second that disagreed with it, a third that agreed with the second
		expect(run.requests).toBe(3 * run.pagesPerRead);
	});

	test('in parallel (default Max Parallel Requests): every item that stayed in the inbox is returned; the result is the inbox after the change', async () => {
		const run = await readWhileOneLeavesAboveAndOneEntersBelow({ confirmListUnchanged: true });
		expect(run.error).toBeUndefined();
		expect(run.stayed.filter((id) => !run.ids.includes(id))).toEqual([]);
		expect(run.ids).toEqual(run.inboxAfter);
	});

	test('a quiet list is read twice and returned once: the confirmation costs one more read', async () => {
		sim.requests.length = 0;
		const { items, error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				filters: { status: ['inbox'] },
				options: { maxParallelRequests: 1, confirmListUnchanged: true },
			},
			credentials,
		});
		expect(error).toBeUndefined();
		const inbox = await apiOrder('status=inbox&sort=newest');
		expect(items.map((i) => i.json.id)).toEqual(inbox);
		expect(inboxRequests()).toHaveLength(2 * Math.ceil(inbox.length / 100));
	});

	test('a list of exactly one full page (100 items, total_count 100) is one request: nothing to confirm', async () => {
		await sim.reset({ count: 100, seed: 24 });
		sim.requests.length = 0;
		const { items, error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				options: { maxParallelRequests: 1, confirmListUnchanged: true },
			},
			credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(100);
		expect(sim.requests.filter((r) => r.path === '/v1/mails')).toHaveLength(1);
	});

	test('sameItems compares ids in order', () => {
		expect(sameItems([{ id: '1' }, { id: '2' }], [{ id: '1' }, { id: '2' }])).toBe(true);
		expect(sameItems([{ id: '1' }, { id: '2' }], [{ id: '2' }, { id: '1' }])).toBe(false);
		expect(sameItems([{ id: '1' }], [{ id: '1' }, { id: '2' }])).toBe(false);
	});
});
