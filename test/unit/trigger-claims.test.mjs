// Exactly once across n8n processes: the trigger's execution claims each delivery in n8n's
// deduplication store (claims.ts). The protocol is tested directly against a store that loses
// updates the way n8n's does; the node through n8n's own webhook and execution code.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import * as F from '../support/fixtures.mjs';
import { mockApi, resetNock } from '../support/api.mjs';
import { dist, processedData, runDelivery } from '../harness/n8n-core-harness.mjs';
import { payloads, request } from '../support/webhooks.mjs';

const { claimDelivery, claimPolicy, deliveryKeyOf } = dist('nodes/VirtualMailboxTrigger/claims.js');
const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SETTLE_MS = claimPolicy.settleMs;

/**
 * n8n's store as seen from several processes: each record reads the whole list, waits `delayMs`
 * (a database round trip), then writes the list back with its new values. Records that overlap
 * overwrite each other. `afterWrite` lets a test interfere once a write has landed.
 */
function lossyStore({ delayMs = 5, afterWrite } = {}) {
	let list = [];
	return {
		get list() {
			return list;
		},
		async record(values) {
			const read = [...list];
			await sleep(delayMs);
			const present = new Set(values.filter((v) => read.includes(v)));
			list = [...read, ...values.filter((v) => !read.includes(v))];
			afterWrite?.(this);
			return present;
		},
		erase() {
			list = [];
		},
	};
}

/** One n8n process's view of the store: its own records one at a time (as state/claimQueues.ts does). */
function processView(store) {
	let tail = Promise.resolve();
	return {
		record(values) {
			const result = tail.then(() => store.record(values));
			tail = result.catch(() => undefined);
			return result;
		},
	};
}

beforeEach(() => {
	claimPolicy.settleMs = 40;
});
afterEach(() => {
	claimPolicy.settleMs = SETTLE_MS;
});

describe('the claim protocol (pure, against a store that loses concurrent updates)', () => {
	test('a delivery claimed once is a duplicate for every later execution', async () => {
		const store = lossyStore();
		expect(await claimDelivery(store, 'k', '1', sleep)).toBe('new');
		expect(await claimDelivery(store, 'k', '2', sleep)).toBe('duplicate');
		expect(await claimDelivery(store, 'k', '3', sleep)).toBe('duplicate');
	});

	test('two copies claimed at the same moment in two processes: exactly one runs (a plain check-and-record runs both)', async () => {
		for (let round = 0; round < 10; round++) {
			const store = lossyStore();
			const outcomes = await Promise.all([claimDelivery(store, 'k', 'a', sleep), claimDelivery(store, 'k', 'b', sleep)]);
			expect(outcomes.sort()).toEqual(['duplicate', 'new']);
			// What the protocol guards against: both reads see nothing, so both would run.
			const naive = lossyStore();
			const plain = await Promise.all([naive.record(['k']), naive.record(['k'])]);
			expect(plain.filter((present) => present.has('k'))).toHaveLength(0);
		}
	});

	test('a burst of distinct deliveries, each also sent to a second process at once: each runs once, and all are remembered for a replay', async () => {
		const store = lossyStore({ delayMs: 3 });
		const [one, two] = [processView(store), processView(store)];
		const keys = Array.from({ length: 10 }, (_, i) => `delivery-${i}`);
		const outcomes = await Promise.all(keys.flatMap((key) => [claimDelivery(one, key, `${key}-p1`, sleep), claimDelivery(two, key, `${key}-p2`, sleep)]));
		for (let i = 0; i < keys.length; i++) expect([outcomes[2 * i], outcomes[2 * i + 1]].sort()).toEqual(['duplicate', 'new']);
		const replay = await Promise.all(keys.map((key, i) => claimDelivery(i % 2 ? one : two, key, `${key}-replay`, sleep)));
		expect(replay).toEqual(keys.map(() => 'duplicate'));
	});

	test('a write for another delivery that replaces both records: the claim is made again and still runs, never lost', async () => {
		let erased = false;
		const store = lossyStore({
			afterWrite: (self) => {
				if (!erased && self.list.includes('k')) {
					erased = true;
					self.erase();
				}
			},
		});
		expect(await claimDelivery(store, 'k', '1', sleep)).toBe('new');
		expect(erased).toBe(true);
		expect(await claimDelivery(store, 'k', '2', sleep)).toBe('duplicate');
	});

	test('a store that never keeps anything: after its rounds the delivery runs (unsettled), it is not dropped', async () => {
		const store = { record: async () => new Set() };
		expect(await claimDelivery(store, 'k', '1', sleep)).toBe('unsettled');
	});

	test("an item's delivery key ignores what the trigger added (full resource, file errors) and changes with the content", () => {
		const plain = { event: 'new-mail', ...payloads['new-mail'] };
		const key = deliveryKeyOf(plain);
		expect(key).toMatch(/^new-mail:/);
		expect(deliveryKeyOf({ ...plain, mail_item: { id: 1 }, download_error: 'x', enrichment_error: 'y' })).toBe(key);
		expect(deliveryKeyOf({ ...plain, mail_status: 'archived' })).not.toBe(key);
		expect(deliveryKeyOf({ foo: 1 })).toBeUndefined();
	});
});

describe('the trigger through n8n: every copy of a delivery runs once across processes and restarts', () => {
	let api;
	beforeEach(() => {
		resetNock();
		api = mockApi();
		processedData.reset();
		recentDeliveries.clear();
	});
	const parameters = (options = {}) => ({ events: ['new-mail', 'scan-update', 'open-update', 'shipment-update'], options });
	/** The same delivery reaching another n8n process: its own memory, a fresh copy of static data. */
	const otherProcess = () => recentDeliveries.clear();

	test('a copy handled by another webhook process is accepted there, and its execution ends at the trigger with no items', async () => {
		const body = payloads['scan-update'];
		const first = await runDelivery({ parameters: parameters(), request: request(body), executionId: '101' });
		expect(first.items.map((i) => i.json)).toEqual([{ event: 'scan-update', ...body }]);
		otherProcess();
		const copy = await runDelivery({ parameters: parameters(), request: request(body), executionId: '102' });
		expect(copy.result.workflowData?.[0]).toHaveLength(1); // this process had not seen it
		expect(copy.items).toEqual([]);
		// A restart of every process: only the database remains.
		otherProcess();
		expect((await runDelivery({ parameters: parameters(), request: request(body), executionId: '103' })).items).toEqual([]);
		// A new status (or new content) is a new event.
		otherProcess();
		const completed = await runDelivery({ parameters: parameters(), request: request({ ...body, current_status: 'CANCELLED' }), executionId: '104' });
		expect(completed.items).toHaveLength(1);
	});

	test('with Add Full Resource the copy is still recognised (the added record is not part of the key)', async () => {
		api.on('GET', `/v1/mails/${payloads['new-mail'].id}`, { body: F.mailDetail(1) }, { persist: true });
		const body = payloads['new-mail'];
		const first = await runDelivery({ parameters: parameters({ includeDetails: true }), request: request(body), executionId: '201' });
		expect(first.items[0].json.mail_item).toBeDefined();
		otherProcess();
		expect((await runDelivery({ parameters: parameters({ includeDetails: true }), request: request(body), executionId: '202' })).items).toEqual([]);
	});

	test('test deliveries (manual mode) and a Duplicate Window of 0 run every time', async () => {
		const body = payloads['shipment-update'];
		for (const executionId of ['301', '302']) {
			otherProcess();
			expect((await runDelivery({ parameters: parameters(), request: request(body), executionId, mode: 'manual' })).items).toHaveLength(1);
		}
		for (const executionId of ['303', '304']) {
			otherProcess();
			expect((await runDelivery({ parameters: parameters({ duplicateWindowMinutes: 0 }), request: request(body), executionId })).items).toHaveLength(1);
		}
	});

	test("the node's first record losing an insert race to another process is tried once more, not a failed execution; failing twice fails the execution", async () => {
		const body = payloads['new-mail'];
		processedData.failures = 1;
		expect((await runDelivery({ parameters: parameters(), request: request(body), executionId: '601' })).items).toHaveLength(1);
		otherProcess();
		processedData.failures = 2;
		await expect(runDelivery({ parameters: parameters(), request: request({ ...body, id: 6020 }), executionId: '602' })).rejects.toThrow(/unique constraint/);
	});

	test('several deliveries claimed at once in one process, with a slow store: each runs once, all are remembered', async () => {
		processedData.writeDelayMs = 5;
		const bodies = [1, 2, 3, 4, 5].map((n) => ({ ...payloads['new-mail'], id: String(9000 + n) }));
		const runs = await Promise.all(bodies.map((body, i) => runDelivery({ parameters: parameters(), request: request(body), executionId: String(400 + i) })));
		expect(runs.map((r) => r.items.length)).toEqual([1, 1, 1, 1, 1]);
		otherProcess();
		const replays = await Promise.all(bodies.map((body, i) => runDelivery({ parameters: parameters(), request: request(body), executionId: String(500 + i) })));
		expect(replays.map((r) => r.items.length)).toEqual([0, 0, 0, 0, 0]);
	});
});
