// Exactly once across n8n processes: the trigger's execution claims each delivery in n8n's
// deduplication store (claims.ts). The protocol is tested directly against a store that loses
// updates the way n8n's does; the node through n8n's own webhook and execution code.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { rng } from '../simulator/data.mjs';
import * as F from '../support/fixtures.mjs';
import { mockApi, resetNock } from '../support/api.mjs';
import { dist, processedData, runDelivery } from '../harness/n8n-core-harness.mjs';
import { payloads, request } from '../support/webhooks.mjs';

const { batchedStore, claimDelivery, claimKeyOf, claimPolicy, deliveryKeyOf, settleMsFor } = dist('nodes/VirtualMailboxTrigger/claims.js');
const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
const POLICY = { ...claimPolicy };

/**
 * Virtual time for the protocol tests: sleep() schedules a timer; run() fires timers in time order,
 * each once everything that could run has run, until the awaited claims finish. Seconds-long
 * waits cost nothing, and a schedule depends only on its seed.
 */
function virtualClock() {
	let now = 0;
	let seq = 0;
	const timers = [];
	return {
		get now() {
			return now;
		},
		sleep: (ms) => new Promise((resolve) => timers.push({ at: now + ms, seq: seq++, resolve })),
		async run(promise) {
			let done = false;
			const watched = promise.finally(() => (done = true));
			for (;;) {
				await new Promise((resolve) => setImmediate(resolve));
				if (done) return await watched;
				if (!timers.length) throw new Error('the claims are stuck: no timer left');
				timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
				const timer = timers.shift();
				now = timer.at;
				timer.resolve();
			}
		},
	};
}

/**
 * n8n's store as seen from several processes: each record reads the whole list (findOne), then
 * writes the list back with its new values (update) after `delay()` ms; records that overlap
 * overwrite each other. As in Postgres (n8n's database in queue mode), a write waits for the row's
 * previous write to land (its lock) and then takes its own time; the read before it waits for
 * nothing. `gap()` is time between the read and the update outside any lock (the worker's event
 * loop busy with other executions' code, a wait for one of the pool's two connections): other
 * processes' writes go on meanwhile. `afterWrite` lets a test interfere once a write has landed.
 */
function lossyStore(clock, { delay = () => 5, afterWrite } = {}) {
	let list = [];
	let rowLock = Promise.resolve();
	return {
		get list() {
			return list;
		},
		async record(values, gap = () => 0) {
			const started = clock.now;
			const read = [...list];
			const gapMs = gap();
			if (gapMs) await clock.sleep(gapMs);
			const previous = rowLock;
			let release;
			rowLock = new Promise((resolve) => (release = resolve));
			await previous;
			await clock.sleep(delay());
			const present = new Set(values.filter((v) => read.includes(v)));
			list = [...read, ...values.filter((v) => !read.includes(v))];
			release();
			afterWrite?.(this);
			return { present, writeMs: clock.now - started };
		},
		erase() {
			list = [];
		},
	};
}

/**
 * One n8n process's view of the store: its claims' records share writes, as claims.ts
 * batchedStore does for a node; `batched: false` writes them one at a time instead, as before.
 */
function processView(store, clock, { batched = true, gap } = {}) {
	if (batched) {
		const batch = batchedStore(clock.sleep);
		return { record: (values) => batch.record(values, (all) => store.record(all, gap)) };
	}
	let tail = Promise.resolve();
	return {
		record(values) {
			const result = tail.then(() => store.record(values));
			tail = result.catch(() => undefined);
			return result;
		},
	};
}

/**
 * A seeded schedule: `deliveries` distinct deliveries, each sent as 1 to `processes` copies
 * (a single copy is an unrelated delivery in between) to different processes, all within the
 * first `spreadMs`; writes take `writeMs()`. With `gapMaxMs` each process is busy up to its own
 * share of that between each read and its update, for as long as the schedule lasts. Answers, per
 * delivery, how many copies ran.
 */
async function schedule({ seed, processes, deliveries, spreadMs, writeMs, batched, gapMaxMs = 0 }) {
	const random = rng(seed);
	const clock = virtualClock();
	const store = lossyStore(clock, { delay: () => writeMs(random) });
	const views = Array.from({ length: processes }, () => {
		const busiest = gapMaxMs * random();
		return processView(store, clock, { batched, gap: () => busiest * random() });
	});
	const claims = [];
	for (let d = 0; d < deliveries; d++) {
		const copies = 1 + Math.floor(random() * processes);
		const first = Math.floor(random() * processes);
		for (let c = 0; c < copies; c++) {
			const view = views[(first + c) % processes];
			const start = random() * spreadMs;
			claims.push(clock.sleep(start).then(() => claimDelivery(view, `delivery-${d}`, `${d}-${c}`, clock.sleep).then((outcome) => [d, outcome])));
		}
	}
	const ran = Array(deliveries).fill(0);
	const outcomes = {};
	for (const [d, outcome] of await clock.run(Promise.all(claims))) {
		if (outcome !== 'duplicate') ran[d]++;
		outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
	}
	const replays = await clock.run(Promise.all(Array.from({ length: deliveries }, (_, d) => claimDelivery(views[d % processes], `delivery-${d}`, `${d}-replay`, clock.sleep))));
	return { ran, replays, outcomes };
}
const aroundMs = (typical) => (random) => typical * (1 + 2 * random()); // writes differ up to 3x

afterEach(() => Object.assign(claimPolicy, POLICY));

describe('the claim protocol (pure, against a store that loses concurrent updates, in virtual time)', () => {
	test('a delivery claimed once is a duplicate for every later execution', async () => {
		const clock = virtualClock();
		const store = lossyStore(clock);
		expect(await clock.run(claimDelivery(store, 'k', '1', clock.sleep))).toBe('new');
		expect(await clock.run(claimDelivery(store, 'k', '2', clock.sleep))).toBe('duplicate');
		expect(await clock.run(claimDelivery(store, 'k', '3', clock.sleep))).toBe('duplicate');
	});

	test('two copies claimed at the same moment in two processes: exactly one runs (a plain check-and-record runs both)', async () => {
		for (const writeMs of [1, 200, 1000, 5000]) {
			const clock = virtualClock();
			const store = lossyStore(clock, { delay: () => writeMs });
			const outcomes = await clock.run(Promise.all([claimDelivery(store, 'k', 'a', clock.sleep), claimDelivery(store, 'k', 'b', clock.sleep)]));
			expect(outcomes.sort(), `${writeMs} ms writes`).toEqual(['duplicate', 'new']);
			// What the protocol guards against: both reads see nothing, so both would run.
			const naive = lossyStore(clock, { delay: () => writeMs });
			const plain = await clock.run(Promise.all([naive.record(['k']), naive.record(['k'])]));
			expect(plain.filter(({ present }) => present.has('k'))).toHaveLength(0);
		}
	});

	test('the wait follows the store: three times the longest write measured, at least 0.3 s, at most 30 s', () => {
		expect([0, 5, 100, 200, 1000, 10_000, 60_000].map(settleMsFor)).toEqual([300, 300, 300, 600, 3000, 30_000, 30_000]);
	});

	test('seeded random schedules (copies in 2 to 4 processes, unrelated deliveries in between, writes of 1 ms to 2.4 s that differ up to 3x): no delivery is lost; copies run twice rarely (at most 2 in 1,000); a replay afterwards is a duplicate but for a rare one whose entries a late write overwrote', async () => {
		const typical = [1, 20, 200, 400, 800];
		let forgotten = 0;
		let deliveries = 0;
		const doubled = [];
		for (let run = 0; run < 1500; run++) {
			const seed = 26_000 + run;
			const writeMs = typical[run % typical.length];
			const { ran, replays, outcomes } = await schedule({ seed, processes: 2 + (run % 3), deliveries: 8, spreadMs: writeMs * 2, writeMs: aroundMs(writeMs) });
			expect(ran.filter((n) => n === 0), `seed ${seed}: copies run per delivery ${ran} (writes around ${writeMs} ms; claims ${JSON.stringify(outcomes)})`).toEqual([]);
			if (ran.some((n) => n > 1)) doubled.push(`seed ${seed} (${2 + (run % 3)} processes, ${writeMs} ms): ${ran}`);
			forgotten += replays.filter((outcome) => outcome !== 'duplicate').length;
			deliveries += ran.length;
		}
		// Doubles come from writes built on reads older than the winner's writes, several in a row (three
		// and four processes writing back to back); the claim cannot see them (claims.ts, the limit).
		expect(doubled.length, doubled.join('\n')).toBeLessThanOrEqual(deliveries / 500);
		// The store itself can lose an entry after every claim has decided (a write that read before
		// the last of them landed, after): a replay of that delivery then runs again.
		expect(forgotten).toBeLessThanOrEqual(deliveries / 1000);
	});

	test('seeded schedules with busy workers (each process up to 0.2 s to 2 s between its read and its update, outside the row lock, on every write, writes of 5 to 15 ms): no delivery is lost, however long the gaps; doubles stay rare', async () => {
		let deliveries = 0;
		const doubled = [];
		for (let run = 0; run < 300; run++) {
			const seed = 28_000 + run;
			const gapMaxMs = [200, 500, 1000, 2000][run % 4];
			const { ran, outcomes } = await schedule({ seed, processes: 2 + (run % 3), deliveries: 8, spreadMs: 3000, writeMs: aroundMs(5), gapMaxMs });
			expect(ran.filter((n) => n === 0), `seed ${seed}: copies run per delivery ${ran} (gaps up to ${gapMaxMs} ms; claims ${JSON.stringify(outcomes)})`).toEqual([]);
			if (ran.some((n) => n > 1)) doubled.push(`seed ${seed} (gaps up to ${gapMaxMs} ms): ${ran}`);
			deliveries += ran.length;
		}
		expect(doubled.length, doubled.join('\n')).toBeLessThanOrEqual(deliveries / 50);
	});

	test('the same schedules with a fixed 0.3 s wait and writes one at a time (the protocol before): copies run twice once writes take longer', async () => {
		Object.assign(claimPolicy, { settleFactor: 0, maxSettleMs: 300 });
		let twice = 0;
		for (let run = 0; run < 30; run++) {
			const { ran } = await schedule({ seed: 26_000 + run, processes: 3, deliveries: 8, spreadMs: 800, writeMs: aroundMs(400), batched: false });
			twice += ran.filter((n) => n > 1).length;
			expect(ran.every((n) => n >= 1)).toBe(true);
		}
		expect(twice).toBeGreaterThan(0);
	});

	test('past the ceiling (writes of 20 s to 60 s): copies may run twice, none is lost', async () => {
		for (let run = 0; run < 60; run++) {
			const seed = 27_000 + run;
			const { ran } = await schedule({ seed, processes: 2 + (run % 3), deliveries: 8, spreadMs: 40_000, writeMs: aroundMs(20_000) });
			expect(ran.every((n) => n >= 1), `seed ${seed}: copies run per delivery ${ran}`).toBe(true);
		}
	});

	test('a write for another delivery that replaces both records: the claim is made again and still runs, never lost', async () => {
		let erased = false;
		const clock = virtualClock();
		const store = lossyStore(clock, {
			afterWrite: (self) => {
				if (!erased && self.list.includes('k')) {
					erased = true;
					self.erase();
				}
			},
		});
		expect(await clock.run(claimDelivery(store, 'k', '1', clock.sleep))).toBe('new');
		expect(erased).toBe(true);
		expect(await clock.run(claimDelivery(store, 'k', '2', clock.sleep))).toBe('duplicate');
	});

	test('a store that never keeps anything: after its rounds the delivery runs (unsettled), it is not dropped', async () => {
		const clock = virtualClock();
		const store = { record: async () => ({ present: new Set(), writeMs: 1 }) };
		expect(await clock.run(claimDelivery(store, 'k', '1', clock.sleep))).toBe('unsettled');
	});

	test("an item's delivery key ignores what the trigger added (full resource, file errors) and changes with the content", () => {
		const plain = { event: 'new-mail', ...payloads['new-mail'] };
		const key = deliveryKeyOf(plain);
		expect(key).toMatch(/^new-mail:/);
		expect(deliveryKeyOf({ ...plain, mail_item: { id: 1 }, download_error: 'x', enrichment_error: 'y' })).toBe(key);
		expect(deliveryKeyOf({ ...plain, mail_status: 'archived' })).not.toBe(key);
		expect(deliveryKeyOf({ foo: 1 })).toBeUndefined();
	});

	test("an item's claim key by node version: version 2 reads the delivery in `delivery`, versions 1 and 1.1 the item itself", () => {
		const sent = { ...payloads['new-mail'], delivery: { carrier: 'USPS' } };
		const key = deliveryKeyOf({ event: 'new-mail', ...sent });
		expect(key).toMatch(/^new-mail:/);
		// At 1 and 1.1 the item is the delivery; its object field `delivery` is just a field.
		for (const version of [1, 1.1]) expect(claimKeyOf({ event: 'new-mail', ...sent }, version)).toBe(key);
		// At 2 the item is the REST shape with the delivery as sent in `delivery`.
		expect(claimKeyOf({ event: 'new-mail', id: '1001', mail_type: 'letter', delivery: sent }, 2)).toBe(key);
		expect(claimKeyOf({ event: 'new-mail', id: '1001' }, 2)).toBeUndefined();
	});
});

describe('the trigger through n8n: every copy of a delivery runs once across processes and restarts', () => {
	let api;
	beforeEach(() => {
		claimPolicy.minSettleMs = 40; // n8n's store here is in memory, its writes take microseconds
		claimPolicy.holdMs = 0; // a winner's entries written again (real timers) would outlive the test's store
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
