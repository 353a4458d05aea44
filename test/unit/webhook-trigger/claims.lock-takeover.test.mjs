// The claim's lock (nodes/VirtualMailboxTrigger/claims.ts) changes hands: a holder whose writes land
// late never deletes the lock of the process that took it over after the lease, and a turn's claims
// wait no longer than its oldest allows; in virtual time, against the model of n8n's store
// (test/support/deduplication-store.mjs).
import { describe, expect, test } from 'vitest';
import {
	claimStoreOf,
	drain,
	freshScope,
	hashOf,
	helpersOf,
	never,
	NODE,
	runs,
	settle,
	startClaim,
	storeModel,
	storeOf,
	WORKFLOW,
} from '../../support/deduplication-store.mjs';

describe('a late write and the next holder of the lock', () => {
	test("a holder whose keys write lands after another process took the lock over does not delete that process's lock", async () => {
		const { clock, table } = storeModel();
		// p1's keys write hangs 170 s, then lands (past its 60 s deadline: its claim answered 'unsettled').
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(
				helpersOf(table, clock, {
					hooks: { 'record-node': (n) => n === 1 && clock.wait(170_000) },
				}),
			),
		});
		// p2 watches the lock from 1 s, takes it over after its lease (random 0.5: 150 s), and records its keys for 40 s.
		let lockWhileP2Records;
		const p2Hooks = {
			'record-node': async () => {
				await clock.wait(40_000);
				lockWhileP2Records = table.rows.has(WORKFLOW);
			},
		};
		const p2 = startClaim(clock, {
			random: 0.5,
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock, { hooks: p2Hooks })),
		});
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p1.outcome).toBe('unsettled');
		expect(p2.outcome).toBe('new');
		expect(
			lockWhileP2Records,
			"p2's lock is still there while p2 records (p1 gave back a lock it no longer held)",
		).toBe(true);
	});

	test("a delete of the lock past its deadline that lands later does not delete the next holder's lock (no lease takeover involved)", async () => {
		const { clock, table } = storeModel();
		// p1's first delete of its lock reaches the store only after 61 s (past the 60 s deadline); the release is then tried again.
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(
				helpersOf(table, clock, { hooks: { delete: (n) => n === 1 && clock.wait(61_000) } }),
			),
		});
		// p2 waits for the lock from 1 s (well within its lease), takes it when it is free, and records its keys for 5 s.
		let lockWhileP2Records;
		const p2Hooks = {
			'record-node': async () => {
				await clock.wait(5000);
				lockWhileP2Records = table.rows.has(WORKFLOW);
			},
		};
		const p2 = startClaim(clock, {
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock, { hooks: p2Hooks })),
		});
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.answeredAt, 'p2 took the lock after p1 gave it back, before any lease').toBeLessThan(
			100_000,
		);
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});
});

describe("a turn's time counts from its oldest claim", () => {
	test('a claim asked 2 s before its turn, with the lock free, is not recorded without the lock (another process records its copy at that moment)', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] });
		const scope = freshScope('p1');
		// p1's first turn: its look at the lock row stalls (the turn gives up at its 4-minute limit), then its keys write takes 5 s.
		const a = startClaim(clock, {
			scope,
			key: 'delivery-0',
			store: storeOf(table, clock, {
				hooks: { count: () => never, 'record-node': (n) => n === 1 && clock.wait(5000) },
			}),
		});
		// b waits through that turn (asked at 1 s); c, a copy of delivery-9, is asked at 243 s, 2 s before p1's next turn.
		const b = startClaim(clock, {
			at: 1000,
			scope,
			key: 'delivery-8',
			store: storeOf(table, clock),
		});
		const c = startClaim(clock, {
			at: 243_000,
			scope,
			key: 'delivery-9',
			store: storeOf(table, clock),
		});
		// p2 (another worker) got the other copy of delivery-9 at 241.5 s: it takes the free lock and records (3 s between its read and write: a busy worker).
		const p2 = startClaim(clock, {
			at: 241_500,
			scope: freshScope('p2'),
			key: 'delivery-9',
			store: storeOf(table, clock, { gapMs: 3000 }),
		});
		expect(await settle(clock, [a, b, c, p2], 600_000)).toBe('answered');
		expect(
			runs([c, p2]),
			`copies of delivery-9 that ran (p1 ${c.outcome} after ${(c.answeredAt - 243_000) / 1000} s, p2 ${p2.outcome})`,
		).toBe(1);
	});
});

describe('giving the lock back after a late write', () => {
	test("a late keys record that lands inside the window (100 s), then a slow count (30 s): the next holder's lock is not deleted", async () => {
		const { clock, table } = storeModel();
		// p1's keys write lands at 100 s (past its deadline: 'unsettled'; before heldAt + 108 s, so the lock is given back);
		// giveBack's look at the row (p1's third count) takes 30 s.
		const hooks = {
			'record-node': (n) => n === 1 && clock.wait(100_000),
			count: (n) => n === 3 && clock.wait(30_000),
		};
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: storeOf(table, clock, { hooks }),
		});
		// p2 watches from 1 s, takes the lock over after its lease (random 0: 120 s) and records its keys for 40 s.
		let lockWhileP2Records;
		const p2Hooks = {
			'record-node': async () => {
				await clock.wait(40_000);
				lockWhileP2Records = table.rows.has(WORKFLOW);
			},
		};
		const p2 = startClaim(clock, {
			random: 0,
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-2',
			store: storeOf(table, clock, { hooks: p2Hooks }),
		});
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.outcome).toBe('new');
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});

	test("a retry started at 59 s holds the lock to the lease (a retry started within the turn's minute): its give-back does not delete the next holder's lock", async () => {
		const { clock, table } = storeModel();
		// p1's keys write fails after 59 s; the retry (started inside the minute) answers after 59.5 s; giveBack's count takes 3 s.
		const hooks = {
			'record-node': async (n) => {
				if (n === 1) {
					await clock.wait(59_000);
					throw new Error('Connection terminated unexpectedly');
				}
				if (n === 2) await clock.wait(59_500);
			},
			count: (n) => n === 3 && clock.wait(3000),
		};
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: storeOf(table, clock, { hooks }),
		});
		let lockWhileP2Records;
		const p2Hooks = {
			'record-node': async () => {
				await clock.wait(10_000);
				lockWhileP2Records = table.rows.has(WORKFLOW);
			},
		};
		const p2 = startClaim(clock, {
			random: 0,
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-2',
			store: storeOf(table, clock, { hooks: p2Hooks }),
		});
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.outcome).toBe('new');
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});
});

describe('the window to give the lock back counts from its insert, not from the count after it', () => {
	test('a holder whose count after its insert answers after the lease does not delete the lock another process took over and still holds', async () => {
		const { clock, table } = storeModel();
		const deletes = [];
		// p1 inserts the lock at ~0 s; the count that follows its insert (its 2nd count) answers only at 160 s.
		const p1Helpers = helpersOf(table, clock, {
			hooks: {
				count: (n) => n === 2 && clock.wait(160_000),
				delete: () =>
					deletes.push({ by: 'p1', at: clock.now(), p2Answered: p2.outcome !== undefined }),
			},
		});
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(p1Helpers),
		});
		// p2 (another worker) waits from 1 s, takes the lock over after its lease (~150 s), and its record of keys takes 30 s.
		const p2Helpers = helpersOf(table, clock, {
			hooks: { 'record-node': () => clock.wait(30_000) },
		});
		const p2 = startClaim(clock, {
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-5',
			store: claimStoreOf(p2Helpers),
		});
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		// p1 took its lock at ~0 s: nothing it deletes may land after 0.9 x the lease (120 s) = 108 s, when another process may take the lock over.
		const late = deletes.filter((d) => d.at > 108_000);
		expect(
			late,
			`p1 deleted the workflow row at ${deletes.map((d) => `${d.at / 1000} s (p2 answered: ${d.p2Answered})`).join(', ')}; p1 ${p1.outcome}, p2 ${p2.outcome}`,
		).toEqual([]);
	});

	test('a holder whose count after its insert answers after the lease does not delete the lock p2 holds while p2 records: the copy p3 gets later does not run a second time', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] }); // the node's row exists (earlier deliveries)
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(
				helpersOf(table, clock, { hooks: { count: (n) => n === 2 && clock.wait(160_000) } }),
			),
		});
		// p2: its record of keys reads the node's row, then writes 30 s later (a busy worker; well within the lease and the 1-minute deadline).
		const fast = helpersOf(table, clock);
		const slow = helpersOf(table, clock, { gapMs: 30_000 });
		const p2Helpers = {
			...fast,
			checkProcessedAndRecord: (items, scope, options) =>
				(scope === 'node' ? slow : fast).checkProcessedAndRecord(items, scope, options),
		};
		const p2 = startClaim(clock, {
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-5',
			store: claimStoreOf(p2Helpers),
		});
		// p3 (a third worker) gets the other copy of delivery-5 at 162 s.
		const p3 = startClaim(clock, {
			at: 162_000,
			scope: freshScope('p3'),
			key: 'delivery-5',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		expect(await settle(clock, [p1, p2, p3], 600_000)).toBe('answered');
		const ran = [p2, p3].filter((c) => ['new', 'unsettled', 'unguarded'].includes(c.outcome));
		expect(
			ran.length,
			`copies of delivery-5 that ran: p2 ${p2.outcome} at ${p2.answeredAt / 1000} s, p3 ${p3.outcome} at ${p3.answeredAt / 1000} s`,
		).toBe(1);
	});
});
