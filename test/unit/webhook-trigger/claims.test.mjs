// Exactly once across n8n processes: the trigger's execution claims each delivery in n8n's
// deduplication store under a lock (claims.ts). The protocol is tested directly, in virtual time,
// against the model of n8n's store shared by simulated processes (test/support/deduplication-store.mjs);
// the node through n8n's own webhook and execution code.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { dist, nodeLogger, processedData, runDelivery } from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';
import {
	hashOf,
	NODE,
	processOf,
	rng,
	tableOf,
	virtualClock,
	WORKFLOW,
} from '../../support/deduplication-store.mjs';

const { FOREIGN_ROW_WARNING, WriteTimes, claimPolicy, lockValues } = dist(
	'nodes/VirtualMailboxTrigger/claims.js',
);
const { deliveryKeyOf } = dist('nodes/VirtualMailboxTrigger/deliveryKey.js');
const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
const { claimQueues } = dist('nodes/shared/state/claimQueues.js');
const POLICY = { ...claimPolicy };
afterEach(() => Object.assign(claimPolicy, POLICY));

/**
 * A seeded schedule: `deliveries` distinct deliveries, each sent as 1 to `processes` copies (a
 * single copy is an unrelated delivery in between) to different processes, all within the first
 * `spreadMs`; writes take `writeMs(random)` inside the row's lock; with `gapMaxMs` each process is
 * busy up to its own share of that between each read and its write. `claim` is how a process claims
 * (the protocol, or a plain check-and-record to compare). Answers how many copies of each delivery
 * ran, and what a replay of each, afterwards in another process, answered.
 */
async function schedule({
	seed,
	processes,
	deliveries,
	spreadMs,
	writeMs,
	gapMaxMs = 0,
	plain = false,
}) {
	const random = rng(seed);
	const clock = virtualClock();
	const model = tableOf(clock);
	// A plain check-and-record would fail on its row's first insert race: the row is there already.
	if (plain) model.put(NODE, { mode: 'entries', data: [] });
	const views = Array.from({ length: processes }, () => {
		const busiest = gapMaxMs * random();
		const timing = { gap: () => busiest * random(), locked: () => writeMs(random) };
		const view = processOf(model, clock, { timing, random });
		// The check-and-record the lock guards: one write of the node's row, nothing else.
		return plain
			? {
					claim: async (key) =>
						(await view.store.recordKeys([key])).has(key) ? 'duplicate' : 'new',
				}
			: view;
	});
	const claims = [];
	for (let d = 0; d < deliveries; d++) {
		const copies = 1 + Math.floor(random() * processes);
		const first = Math.floor(random() * processes);
		for (let c = 0; c < copies; c++)
			claims.push(
				clock
					.wait(random() * spreadMs)
					.then(() =>
						views[(first + c) % processes].claim(`delivery-${d}`).then((outcome) => [d, outcome]),
					),
			);
	}
	const ran = Array(deliveries).fill(0);
	const outcomes = {};
	for (const [d, outcome] of await clock.run(Promise.all(claims))) {
		if (outcome !== 'duplicate') ran[d]++;
		outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
	}
	// A replay after every process restarted: a process with no claim state of its own.
	const restarted = processOf(model, clock, { random });
	const replays = await clock.run(
		Promise.all(Array.from({ length: deliveries }, (_, d) => restarted.claim(`delivery-${d}`))),
	);
	return { ran, replays, outcomes, model };
}
const aroundMs = (typical) => (random) => typical * (1 + 2 * random()); // writes differ up to 3x

describe("the claim protocol (pure, against a model of n8n's store shared by simulated processes, in virtual time)", () => {
	test('a delivery claimed once is a duplicate for every later execution, in that process and in another (a replay after a restart)', async () => {
		const clock = virtualClock();
		const model = tableOf(clock);
		const p1 = processOf(model, clock);
		expect(await clock.run(p1.claim('k'))).toBe('new');
		expect(await clock.run(p1.claim('k'))).toBe('duplicate');
		expect(await clock.run(processOf(model, clock).claim('k'))).toBe('duplicate');
		// The lock is given back after each turn (just after its claims are answered): the workflow's row is gone.
		await clock.run(clock.wait(100));
		expect(model.rows.has(WORKFLOW)).toBe(false);
	});

	test('two copies claimed at the same moment in two processes: exactly one runs (a plain check-and-record runs both)', async () => {
		for (const writeMs of [0, 1, 200, 1000, 5000]) {
			const clock = virtualClock();
			const model = tableOf(clock);
			const [a, b] = [
				processOf(model, clock, { timing: { locked: () => writeMs } }),
				processOf(model, clock, { timing: { locked: () => writeMs } }),
			];
			// An earlier delivery: the node's row exists (its first insert alone would be atomic).
			expect(await clock.run(a.claim('earlier'))).toBe('new');
			const outcomes = await clock.run(Promise.all([a.claim('k'), b.claim('k')]));
			expect(outcomes.sort(), `${writeMs} ms writes`).toEqual(['duplicate', 'new']);
			// What the lock guards against: both reads of the node's row see nothing, so both would run.
			const plain = await clock.run(
				Promise.all([a.store.recordKeys(['p']), b.store.recordKeys(['p'])]),
			);
			expect(
				plain.filter((present) => present.has('p')),
				`${writeMs} ms writes`,
			).toHaveLength(0);
		}
	});

	test("a process's lease follows its slowest recent write (120 s, or 20 times that write); its polls twice its typical write, within 5 ms to 0.5 s", () => {
		const times = new WriteTimes();
		expect(times.leaseMs()).toBe(120_000);
		expect([0, 0.5, 0.999].map((r) => times.pollMs(r))).toEqual([3, 5, 7]);
		for (const ms of [10, 10, 10, 10_000]) times.add(ms);
		expect(times.leaseMs()).toBe(200_000);
		expect(times.pollMs(0.5)).toBe(20);
		for (let i = 0; i < 16; i++) times.add(2000);
		expect(times.pollMs(0.5)).toBe(500);
		expect(times.leaseMs(), 'the 10 s write has left the 16 kept').toBe(120_000);
	});

	test('seeded random schedules (copies in 2 to 4 processes, unrelated deliveries in between, writes of 0 ms to 2.4 s that differ up to 3x): each delivery runs exactly once and a replay afterwards is a duplicate', async () => {
		const typical = [0, 1, 20, 200, 400, 800];
		for (let run = 0; run < 240; run++) {
			const seed = 26_000 + run;
			const writeMs = typical[run % typical.length];
			const { ran, replays, outcomes } = await schedule({
				seed,
				processes: 2 + (run % 3),
				deliveries: 8,
				spreadMs: writeMs * 2 + 1,
				writeMs: aroundMs(writeMs),
			});
			const where = `seed ${seed} (writes around ${writeMs} ms): copies run per delivery ${ran}; claims ${JSON.stringify(outcomes)}`;
			expect(ran, where).toEqual(Array(8).fill(1));
			expect(Object.keys(outcomes).sort(), where).toEqual(
				['duplicate', 'new'].filter((o) => outcomes[o]),
			);
			expect(
				replays.filter((outcome) => outcome !== 'duplicate'),
				where,
			).toEqual([]);
		}
	});

	test('seeded schedules with busy workers (each process up to 0.2 s to 2 s between a read and its write, outside the row lock, on every write, writes of 5 to 15 ms): each delivery runs exactly once', async () => {
		for (let run = 0; run < 120; run++) {
			const seed = 28_000 + run;
			const gapMaxMs = [200, 500, 1000, 2000][run % 4];
			const { ran, replays, outcomes } = await schedule({
				seed,
				processes: 2 + (run % 3),
				deliveries: 8,
				spreadMs: 3000,
				writeMs: aroundMs(5),
				gapMaxMs,
			});
			const where = `seed ${seed} (gaps up to ${gapMaxMs} ms): copies run per delivery ${ran}; claims ${JSON.stringify(outcomes)}`;
			expect(ran, where).toEqual(Array(8).fill(1));
			expect(
				replays.filter((outcome) => outcome !== 'duplicate'),
				where,
			).toEqual([]);
		}
	});

	test("without the lock, a plain check-and-record of the node's row runs copies of the same schedules twice and overwrites records, so a replayed delivery is not seen as a duplicate", async () => {
		let twice = 0;
		let forgotten = 0;
		for (let run = 0; run < 30; run++) {
			const { ran, replays } = await schedule({
				seed: 26_000 + run,
				processes: 3,
				deliveries: 8,
				spreadMs: 800,
				writeMs: aroundMs(400),
				plain: true,
			});
			twice += ran.filter((n) => n > 1).length;
			forgotten += replays.filter((outcome) => outcome !== 'duplicate').length;
			expect(ran.every((n) => n >= 1)).toBe(true);
		}
		expect(twice).toBeGreaterThan(0);
		expect(forgotten).toBeGreaterThan(0);
	});

	test('past the write deadline (writes of 40 s to 120 s): copies may run twice ("unsettled"), none is lost', async () => {
		const seen = new Set();
		for (let run = 0; run < 20; run++) {
			const seed = 27_000 + run;
			const { ran, outcomes } = await schedule({
				seed,
				processes: 2 + (run % 3),
				deliveries: 4,
				spreadMs: 40_000,
				writeMs: aroundMs(40_000),
			});
			for (const outcome of Object.keys(outcomes)) seen.add(outcome);
			expect(
				ran.every((n) => n >= 1),
				`seed ${seed}: copies run per delivery ${ran}`,
			).toBe(true);
		}
		expect(seen.has('unsettled')).toBe(true);
	});

	test('a lock whose insert always loses a race (a store that never lets this process in): after claimPolicy.maxClaimMs the delivery runs (unsettled), it is not dropped', async () => {
		// Seconds, not the shipped minutes: each look at the lock is a real turn of the event loop.
		Object.assign(claimPolicy, { leaseMs: 2_000, maxClaimMs: 6_000 });
		const clock = virtualClock();
		const model = tableOf(clock);
		const p = processOf(model, clock, {
			timing: {
				intercept: (op) =>
					op === 'recordLock'
						? Promise.reject(new Error('duplicate key value violates unique constraint'))
						: undefined,
			},
		});
		expect(await clock.run(p.claim('k'))).toBe('unsettled');
		expect(clock.now()).toBeGreaterThanOrEqual(claimPolicy.maxClaimMs);
	});

	test("a lock left by a stopped process (a row with only the lock's values, never deleted): claims wait it out, at most the lease, then each delivery runs exactly once", async () => {
		for (let run = 0; run < 20; run++) {
			const random = rng(29_000 + run);
			const clock = virtualClock();
			const model = tableOf(clock);
			model.put(WORKFLOW, { mode: 'entries', data: lockValues().map(hashOf) });
			const views = Array.from({ length: 3 }, () =>
				processOf(model, clock, { timing: { locked: () => 1 + 4 * random() }, random }),
			);
			const claims = [];
			for (let c = 0; c < 6; c++)
				claims.push(clock.wait(random() * 1000).then(() => views[c % 3].claim(`d${c % 2}`)));
			const outcomes = await clock.run(
				Promise.all(claims.map((claim) => claim.then((outcome) => [outcome, clock.now()]))),
			);
			const where = `seed ${29_000 + run}: ${JSON.stringify(outcomes)}`;
			expect(
				outcomes.filter(([o], i) => i % 2 === 0 && o !== 'duplicate'),
				where,
			).toHaveLength(1);
			expect(
				outcomes.filter(([o], i) => i % 2 === 1 && o !== 'duplicate'),
				where,
			).toHaveLength(1);
			expect(
				outcomes.every(([o]) => o === 'new' || o === 'duplicate'),
				where,
			).toBe(true);
			const finished = outcomes.map(([, at]) => at);
			expect(Math.min(...finished), where).toBeGreaterThan(claimPolicy.leaseMs); // the lock was respected while it could be live
			expect(Math.max(...finished), where).toBeLessThan(1000 + 1.5 * claimPolicy.leaseMs + 2000); // each waiter's lease is drawn within 1 to 1.5 times
			await clock.run(clock.wait(100));
			expect(model.rows.has(WORKFLOW), where).toBe(false);
		}
	});

	for (const [name, foreign] of [
		['several values', ['other-node-a', 'other-node-b', 'other-node-c']],
		['one value', ['other-node-a']],
	]) {
		test(`another node's list in the workflow's row (a Remove Duplicates node with scope Workflow, ${name}): never deleted or changed but for a moment, each delivery still runs once per process, one warning per process`, async () => {
			const clock = virtualClock();
			const deletes = [];
			const model = tableOf(clock, {
				log: (change) =>
					change.op === 'delete' && change.context === WORKFLOW && deletes.push(change),
			});
			model.put(WORKFLOW, { mode: 'entries', data: foreign.map(hashOf) });
			const warnings = [];
			const p = processOf(model, clock, { warnings });
			for (const key of ['a', 'b', 'a', 'c', 'b']) await clock.run(p.claim(key));
			const outcomes = [];
			for (const key of ['a', 'b', 'c', 'd']) outcomes.push(await clock.run(p.claim(key)));
			expect(outcomes).toEqual(['duplicate', 'duplicate', 'duplicate', 'unguarded']);
			expect(warnings).toEqual([FOREIGN_ROW_WARNING]);
			expect(model.data(WORKFLOW)).toEqual(foreign.map(hashOf));
			expect(deletes).toEqual([]);
		});
	}

	test("an item's delivery key ignores what the trigger added (full resource, file errors) and changes with the content", () => {
		const plain = { event: 'new-mail', ...payloads['new-mail'] };
		const key = deliveryKeyOf(plain, 1);
		expect(key).toMatch(/^new-mail:/);
		expect(
			deliveryKeyOf(
				{ ...plain, mail_item: { id: 1 }, download_error: 'x', enrichment_error: 'y' },
				1,
			),
		).toBe(key);
		expect(deliveryKeyOf({ ...plain, mail_status: 'archived' }, 1)).not.toBe(key);
		expect(deliveryKeyOf({ foo: 1 }, 1)).toBeUndefined();
	});

	test("an item's claim key by node version: version 2 keys new mail on its id, a completion on its scan id, other updates on their REST content; versions 1 and 1.1 the item itself", () => {
		const sent = { ...payloads['new-mail'], delivery: { carrier: 'USPS' } };
		const key = deliveryKeyOf({ event: 'new-mail', ...sent }, 1);
		expect(key).toMatch(/^new-mail:/);
		// At 1 and 1.1 the item is the delivery; its object field `delivery` is just a field.
		for (const version of [1, 1.1])
			expect(deliveryKeyOf({ event: 'new-mail', ...sent }, version)).toBe(key);
		// At 2 new mail is one event per mail item: its delivery and the catch-up's list entry (other
		// fields, links and content) claim the same key.
		const rest = {
			event: 'new-mail',
			id: '1001',
			mail_type: 'letter',
			mail_status: 'inbox',
			sender_name: 'City Utilities',
			envelope_image_url: 'https://x/1?sig=a',
			message: 'a',
		};
		expect(deliveryKeyOf(rest, 2)).toBe('new-mail:1001');
		expect(
			deliveryKeyOf(
				{ event: 'new-mail', id: '1001', is_read: false, folder_id: null, caught_up: true },
				2,
			),
		).toBe('new-mail:1001');
		// A completed scan or open request: its id and COMPLETED, whatever else the item carries.
		const scan = {
			event: 'scan-update',
			id: '5ca0',
			mail_id: '1001',
			type: 'SCAN_REQUEST',
			status: 'COMPLETED',
			label: 'Bill',
			summary: ['Due 12 Dec'],
		};
		expect(deliveryKeyOf(scan, 2)).toBe('scan-update:5ca0|COMPLETED');
		expect(deliveryKeyOf({ ...scan, summary: null, created_at: 'x', caught_up: true }, 2)).toBe(
			'scan-update:5ca0|COMPLETED',
		);
		expect(deliveryKeyOf({ ...scan, event: 'open-update' }, 2)).toBe('open-update:5ca0|COMPLETED');
		// Other statuses and shipments: their REST content, without links, message and what the trigger added.
		const inProcess = { ...scan, status: 'IN_PROCESS', scan_result_url: 'https://x/1?sig=a' };
		const inProcessKey = deliveryKeyOf(inProcess, 2);
		expect(inProcessKey).toMatch(/^scan-update:5ca0\|IN_PROCESS#/);
		expect(
			deliveryKeyOf(
				{ ...inProcess, scan_result_url: 'https://x/1?sig=b', message: 'b', scan_summary: {} },
				2,
			),
		).toBe(inProcessKey);
		expect(deliveryKeyOf({ ...inProcess, label: 'Other' }, 2)).not.toBe(inProcessKey);
		expect(
			deliveryKeyOf(
				{ ...inProcess, delivery: { ...payloads['scan-update'], scan_result_url: 'https://x/2' } },
				2,
			),
		).toBe(deliveryKeyOf({ ...inProcess, delivery: payloads['scan-update'] }, 2));
		expect(deliveryKeyOf({ event: 'new-mail' }, 2)).toBeUndefined();
		expect(deliveryKeyOf({ event: 'other', id: '1' }, 2)).toBeUndefined();
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
	const parameters = (options = {}) => ({
		events: ['new-mail', 'scan-update', 'open-update', 'shipment-update'],
		options,
	});
	/** The same delivery reaching another n8n process: its own memory, a fresh copy of static data. */
	const otherProcess = () => recentDeliveries.clear();
	/** The workflow's row in the harness's store (runDelivery's default workflow). */
	const WORKFLOW_ROW = 'wf-deliveries|';

	test('a copy handled by another webhook process is accepted there, and its execution ends at the trigger with no items', async () => {
		const body = payloads['scan-update'];
		const first = await runDelivery({
			parameters: parameters(),
			request: request(body),
			executionId: '101',
		});
		expect(first.items.map((i) => i.json)).toEqual([{ event: 'scan-update', ...body }]);
		otherProcess();
		const copy = await runDelivery({
			parameters: parameters(),
			request: request(body),
			executionId: '102',
		});
		expect(copy.result.workflowData?.[0]).toHaveLength(1); // this process had not seen it
		expect(copy.items).toEqual([]);
		// A restart of every process: only the database remains.
		otherProcess();
		expect(
			(await runDelivery({ parameters: parameters(), request: request(body), executionId: '103' }))
				.items,
		).toEqual([]);
		// A new status (or new content) is a new event.
		otherProcess();
		const completed = await runDelivery({
			parameters: parameters(),
			request: request({ ...body, current_status: 'CANCELLED' }),
			executionId: '104',
		});
		expect(completed.items).toHaveLength(1);
		// A turn answers its claims before it gives the lock back: the execution may end first.
		await vi.waitFor(
			() => expect(processedData.rows.has(WORKFLOW_ROW), 'the lock is given back').toBe(false),
			{ timeout: 5_000 },
		);
	});

	test('with Add Full Resource the copy is still recognised (the added record is not part of the key)', async () => {
		api.on(
			'GET',
			`/v1/mails/${payloads['new-mail'].id}`,
			{ body: F.mailDetail(1) },
			{ persist: true },
		);
		const body = payloads['new-mail'];
		const first = await runDelivery({
			parameters: parameters({ includeDetails: true }),
			request: request(body),
			executionId: '201',
		});
		expect(first.items[0].json.mail_item).toBeDefined();
		otherProcess();
		expect(
			(
				await runDelivery({
					parameters: parameters({ includeDetails: true }),
					request: request(body),
					executionId: '202',
				})
			).items,
		).toEqual([]);
	});

	test('test deliveries (manual mode) and a Duplicate Window of 0 run every time', async () => {
		const body = payloads['shipment-update'];
		for (const executionId of ['301', '302']) {
			otherProcess();
			expect(
				(
					await runDelivery({
						parameters: parameters(),
						request: request(body),
						executionId,
						mode: 'manual',
					})
				).items,
			).toHaveLength(1);
		}
		for (const executionId of ['303', '304']) {
			otherProcess();
			expect(
				(
					await runDelivery({
						parameters: parameters({ duplicateWindowMinutes: 0 }),
						request: request(body),
						executionId,
					})
				).items,
			).toHaveLength(1);
		}
		expect(processedData.rows.size, 'nothing claimed').toBe(0);
	});

	test('a lost insert race on the lock is tried again, not a failed execution', async () => {
		const body = payloads['new-mail'];
		processedData.failures = 3; // the lock's insert loses three times in a row
		expect(
			(await runDelivery({ parameters: parameters(), request: request(body), executionId: '601' }))
				.items,
		).toHaveLength(1);
		expect(processedData.failures).toBe(0);
		otherProcess();
		expect(
			(await runDelivery({ parameters: parameters(), request: request(body), executionId: '602' }))
				.items,
		).toEqual([]);
	});

	test("a keys write that fails fails only that execution's claim: the executions claimed with it run, and its delivery runs when retried", async () => {
		processedData.writeDelayMs = 5;
		const bodies = [1, 2, 3, 4].map((n) => ({ ...payloads['new-mail'], id: String(7000 + n) }));
		const failing = deliveryKeyOf({ event: 'new-mail', ...bodies[2] }, 1);
		processedData.failWhen = ({ items, scope }) => scope === 'node' && items.includes(failing);
		const runs = await Promise.all(
			bodies.map((body, i) =>
				runDelivery({
					parameters: parameters(),
					request: request(body),
					executionId: String(610 + i),
				}).then(
					(r) => r.items.length,
					(e) => `failed: ${e.message}`,
				),
			),
		);
		expect(runs).toEqual([1, 1, 'failed: Connection terminated unexpectedly', 1]);
		// A turn answers its claims before it gives the lock back: the execution may end first.
		await vi.waitFor(
			() => expect(processedData.rows.has(WORKFLOW_ROW), 'the lock is given back').toBe(false),
			{ timeout: 5_000 },
		);
		processedData.failWhen = undefined;
		otherProcess();
		const retries = await Promise.all(
			bodies.map((body, i) =>
				runDelivery({
					parameters: parameters(),
					request: request(body),
					executionId: String(620 + i),
				}),
			),
		);
		expect(retries.map((r) => r.items.length)).toEqual([0, 0, 1, 0]);
	});

	test('several deliveries claimed at once in one process, with a slow store: each runs once, all are remembered', async () => {
		processedData.writeDelayMs = 5;
		const bodies = [1, 2, 3, 4, 5].map((n) => ({ ...payloads['new-mail'], id: String(9000 + n) }));
		const runs = await Promise.all(
			bodies.map((body, i) =>
				runDelivery({
					parameters: parameters(),
					request: request(body),
					executionId: String(400 + i),
				}),
			),
		);
		expect(runs.map((r) => r.items.length)).toEqual([1, 1, 1, 1, 1]);
		otherProcess();
		const replays = await Promise.all(
			bodies.map((body, i) =>
				runDelivery({
					parameters: parameters(),
					request: request(body),
					executionId: String(500 + i),
				}),
			),
		);
		expect(replays.map((r) => r.items.length)).toEqual([0, 0, 0, 0, 0]);
	});

	for (const [name, foreign, workflowId] of [
		['several values', ['remove-duplicates-a', 'remove-duplicates-b'], 'wf-foreign-several'],
		['one value', ['remove-duplicates-a'], 'wf-foreign-one'],
	]) {
		test(`a Remove Duplicates node's list in the workflow's row (scope Workflow, ${name}) is kept as it was; each delivery runs once in the process, and n8n's log warns once`, async () => {
			const warn = vi.spyOn(nodeLogger(), 'warn');
			try {
				const row = processedData.hashesOf(foreign);
				processedData.rows.set(`${workflowId}|`, [...row]);
				const bodies = [1, 2].map((n) => ({ ...payloads['new-mail'], id: String(8100 + n) }));
				const items = [];
				for (const [i, body] of [...bodies, ...bodies].entries()) {
					otherProcess();
					items.push(
						(
							await runDelivery({
								parameters: parameters(),
								request: request(body),
								workflowId,
								executionId: String(700 + i),
							})
						).items.length,
					);
				}
				expect(items).toEqual([1, 1, 0, 0]);
				expect(processedData.rows.get(`${workflowId}|`)).toEqual(row);
				const warned = warn.mock.calls
					.map(([message]) => message)
					.filter((message) => message.includes(FOREIGN_ROW_WARNING));
				expect(warned).toHaveLength(1);
			} finally {
				warn.mockRestore();
			}
		});
	}

	test('a lock left by a stopped process (the row with only the lock, never deleted) holds claims up to the lease; then each delivery runs exactly once', async () => {
		// This process restarted: no slow write of an earlier test lengthens its lease (20 times the slowest).
		claimQueues.clear();
		claimPolicy.leaseMs = 150;
		processedData.rows.set(WORKFLOW_ROW, processedData.hashesOf(lockValues()));
		const body = payloads['open-update'];
		const first = await runDelivery({
			parameters: parameters(),
			request: request(body),
			executionId: '801',
		});
		expect(first.items).toHaveLength(1);
		await vi.waitFor(
			() => expect(processedData.rows.has(WORKFLOW_ROW), 'the lock is given back').toBe(false),
			{ timeout: 5_000 },
		);
		otherProcess();
		expect(
			(await runDelivery({ parameters: parameters(), request: request(body), executionId: '802' }))
				.items,
		).toEqual([]);
	});
});
