// Issue #24, part 3: a list read while it changes. The API's cursors count positions: when one item
// leaves the list above the read position and another enters below it, every total_count stays the
// same, and the item pushed across the next page boundary is never read. Both tests failed on the
// code before (the node returned success without an item that stayed in the inbox throughout);
// now a list of more than one page is read a second time and returned only when both reads agree.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runNode } from '../harness/n8n-core-harness.mjs';

const { sameItems } = dist('nodes/shared/transport/pagination.js');

let sim;
let credentials;
beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 3000, seed: 24, letterShare: 70 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
beforeEach(() => sim.reset({ count: 3000, seed: 24, letterShare: 70 }));

const apiOrder = async (search) => (await fetch(`${sim.url}/_control/query?${search}`)).json();
const act = (id, action) => fetch(`${sim.url}/v1/mails/${id}/${action}`, { method: 'POST', headers: { authorization: `Bearer ${sim.apiKey}` } });
const inboxRequests = () => sim.requests.filter((r) => r.path === '/v1/mails' && r.query.status?.join() === 'inbox');

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
	const { items, error } = await runNode({ parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: { status: ['inbox'] }, options }, credentials });
	sim.settings.onRequest = undefined;
	const inboxAfter = await apiOrder('status=inbox&sort=newest');
	expect(inboxAfter.length).toBe(inboxBefore.length); // the counts cannot see this change
	const stayed = inboxBefore.filter((id) => id !== leaving);
	return { ids: (items ?? []).map((i) => i.json.id), error, stayed, inboxAfter, requests: inboxRequests().length, pagesPerRead: Math.ceil(inboxBefore.length / 100) };
}

describe('Return All with Status = Inbox while one item is archived above the read position and another unarchived below it', () => {
	test('one page after another (Max Parallel Requests 1): every item that stayed in the inbox is returned; the result is the inbox after the change', async () => {
		const run = await readWhileOneLeavesAboveAndOneEntersBelow({ maxParallelRequests: 1 });
		expect(run.error).toBeUndefined();
		expect(run.stayed.filter((id) => !run.ids.includes(id))).toEqual([]);
		expect(run.ids).toEqual(run.inboxAfter);
		// the cost: the first read, a second that disagreed with it, a third that agreed with the second
		expect(run.requests).toBe(3 * run.pagesPerRead);
	});

	test('in parallel (default Max Parallel Requests): every item that stayed in the inbox is returned; the result is the inbox after the change', async () => {
		const run = await readWhileOneLeavesAboveAndOneEntersBelow({});
		expect(run.error).toBeUndefined();
		expect(run.stayed.filter((id) => !run.ids.includes(id))).toEqual([]);
		expect(run.ids).toEqual(run.inboxAfter);
	});

	test('a quiet list is read twice and returned once: the confirmation costs one more read', async () => {
		sim.requests.length = 0;
		const { items, error } = await runNode({ parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: { status: ['inbox'] }, options: { maxParallelRequests: 1 } }, credentials });
		expect(error).toBeUndefined();
		const inbox = await apiOrder('status=inbox&sort=newest');
		expect(items.map((i) => i.json.id)).toEqual(inbox);
		expect(inboxRequests()).toHaveLength(2 * Math.ceil(inbox.length / 100));
	});

	test('a list of exactly one full page (100 items, total_count 100) is one request: nothing to confirm', async () => {
		// Failed on the code before: a full first page was taken for "more than one page" and read again.
		await sim.reset({ count: 100, seed: 24 });
		sim.requests.length = 0;
		const { items, error } = await runNode({ parameters: { resource: 'mail', operation: 'getAll', returnAll: true, options: { maxParallelRequests: 1 } }, credentials });
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
