// The claim (nodes/VirtualMailboxTrigger/claims.ts) when n8n's deduplication store fails: reads and
// writes that fail before or after their statement, hang, or fail slowly. Nothing is lost, no claim
// waits past its stated limits, and the lock is given back; in virtual time, against the model of
// n8n's store (test/support/deduplication-store.mjs). Limits: docs/webhook-trigger.md.
import { describe, expect, test } from 'vitest';
import {
	claimPolicy,
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
	WORKFLOW,
} from '../../support/deduplication-store.mjs';

describe('no stall beyond the stated limits (3 min for the lock, 1 min for a write)', () => {
	test("a keys write that never answers: the process's later claims of the trigger still answer", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		const hooks = { 'record-node': (n) => (n === 1 ? never : undefined) };
		const first = startClaim(clock, {
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		const later = startClaim(clock, {
			at: 70_000,
			scope,
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		const limit = 70_000 + claimPolicy.maxClaimMs + claimPolicy.writeDeadlineMs + 10_000;
		const state = await settle(clock, [first, later], limit);
		expect(first.outcome).toBe('unsettled');
		expect(`${state}; delivery-2: ${later.outcome ?? 'no answer'}`).toBe(
			'answered; delivery-2: new',
		);
	});

	test('a read of the lock row that never answers: the claim still answers within the claim limit (twice the lease) + 1 min', async () => {
		const { clock, table } = storeModel();
		const hooks = { count: (n) => (n === 1 ? never : undefined) };
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		const state = await settle(
			clock,
			[claim],
			Math.max(claimPolicy.maxClaimMs, 2 * claimPolicy.leaseMs) +
				claimPolicy.writeDeadlineMs +
				1_000,
		);
		expect(`${state}: ${claim.outcome ?? 'no answer'}`).toMatch(/^answered: /);
	});

	test("a delete of the lock that never answers: the process's later claims still answer", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		const hooks = { delete: (n) => (n === 1 ? never : undefined) };
		const first = startClaim(clock, {
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		const later = startClaim(clock, {
			at: 10_000,
			scope,
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		const state = await settle(
			clock,
			[first, later],
			10_000 + claimPolicy.maxClaimMs + claimPolicy.writeDeadlineMs + 10_000,
		);
		expect(first.outcome).toBe('new');
		expect(`${state}; delivery-2: ${later.outcome ?? 'no answer'}`).toMatch(
			/^answered; delivery-2: /,
		);
	});
});

describe('a store that fails slowly (pool exhausted: n8n waits DB_POSTGRESDB_CONNECTION_TIMEOUT, 20 s, then throws)', () => {
	test('10 claims whose writes fail after 20 s each (retried one by one): no other process deletes the lock p1 holds, no claim waits past 1 min + its turn', async () => {
		const { clock, table } = storeModel();
		const scope = freshScope('p1');
		const failing = {
			'record-node': async () => {
				await clock.wait(20_000);
				throw new Error('timeout exceeded when trying to connect');
			},
		};
		// p1 holds the lock from its lock insert (recordLock answers false) until its deleteLock starts.
		const p1 = claimStoreOf(helpersOf(table, clock, { hooks: failing }));
		let p1Holds = false;
		const p1Store = {
			...p1,
			recordLock: async () => {
				const wasThere = await p1.recordLock();
				if (!wasThere) p1Holds = true;
				return wasThere;
			},
			deleteLock: async () => ((p1Holds = false), await p1.deleteLock()),
		};
		const claims = Array.from({ length: 10 }, (_, i) =>
			startClaim(clock, { scope, key: `delivery-${i}`, store: p1Store }),
		);
		// Another process's claim waits for the lock meanwhile; count its deletes of a lock p1 holds.
		const p2 = claimStoreOf(helpersOf(table, clock));
		let brokeLive = 0;
		const p2Store = {
			...p2,
			deleteLock: async () => ((brokeLive += p1Holds ? 1 : 0), await p2.deleteLock()),
		};
		const other = startClaim(clock, {
			at: 60_000,
			scope: freshScope('p2'),
			key: 'delivery-x',
			store: p2Store,
		});
		await settle(clock, [...claims, other], 900_000);
		const lastAnswer = Math.max(...claims.map((c) => c.answeredAt));
		expect({ brokeLive, lastAnswerMs: lastAnswer }).toEqual({
			brokeLive: 0,
			lastAnswerMs: expect.any(Number),
		});
		// The first claim's turn (its batch write and one retry, 40 s) runs alone; the other nine's turn
		// stops retrying once it has run writeDeadlineMs: at most one more failing write (20 s) after that.
		expect(lastAnswer, 'ms until the last of the batch answered').toBeLessThan(
			40_000 + claimPolicy.writeDeadlineMs + 20_000 + 1_000,
		);
	});
});

describe('the lock is always given back', () => {
	test('a read that fails right after the lock insert: the row is deleted and the next process is not held for the lease', async () => {
		const { clock, table } = storeModel();
		// The second count (the check after the insert) fails: a dropped connection, a pool timeout.
		const hooks = {
			count: (n) => {
				if (n === 2) throw new Error('Connection terminated unexpectedly');
			},
		};
		const first = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		const other = startClaim(clock, {
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		await settle(clock, [first], 1000);
		// The insert landed: the claim goes on as the holder (its keys recorded, the lock given back).
		expect(['new', 'unsettled']).toContain(first.outcome);
		await settle(clock, [other], 600_000);
		expect(other.answeredAt - 1000, 'ms another process waits for the orphaned lock').toBeLessThan(
			10_000,
		);
		await drain(clock);
		expect(table.rows.has(WORKFLOW), 'the lock row once all settled').toBe(false);
	});
});

describe('never lost', () => {
	test("a keys write that committed but reported an error: the claim does not answer 'duplicate' (no one else recorded it)", async () => {
		const { clock, table } = storeModel();
		// The batch's UPDATE/INSERT commits, then the connection drops before the reply.
		const after = {
			'record-node': (n) => {
				if (n === 1) throw new Error('Connection terminated unexpectedly');
			},
		};
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { after })),
		});
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		expect(table.data(NODE)).toContain(hashOf('delivery-1')); // recorded by this execution only
		expect(claim.outcome, 'the only execution of delivery-1').not.toBe('duplicate');
	});

	test("a batch whose first claim's store fails: another execution's claim uses its own store", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		const broken = claimStoreOf(helpersOf(table, clock));
		broken.recordKeys = async () => {
			throw new Error('this execution was cancelled');
		};
		const slowFirstTurn = { 'record-node': () => clock.wait(500) };
		// delivery-0 takes a first turn; delivery-1 (broken store) and delivery-2 queue behind it as one batch.
		const zero = startClaim(clock, {
			scope,
			key: 'delivery-0',
			store: claimStoreOf(helpersOf(table, clock, { hooks: slowFirstTurn })),
		});
		const one = startClaim(clock, { at: 100, scope, key: 'delivery-1', store: broken });
		const two = startClaim(clock, {
			at: 200,
			scope,
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		expect(await settle(clock, [zero, one, two], 10_000)).toBe('answered');
		expect(two.outcome).toBe('new');
	});
});

describe('a failed record of keys is tried again', () => {
	test('two copies of one delivery in one turn whose batch write failed (did not land): only one runs', async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		// A first turn keeps the lock 1 s, so both copies (from two webhook processes, run on this worker) wait for the next turn together.
		const zero = startClaim(clock, {
			scope,
			key: 'delivery-0',
			store: claimStoreOf(
				helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } }),
			),
		});
		// The batch is written with the first copy's store; its first write fails before landing (connection reset).
		const failsOnce = {
			'record-node': (n) => {
				if (n === 1) throw new Error('Connection terminated unexpectedly');
			},
		};
		const copyA = startClaim(clock, {
			at: 100,
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })),
		});
		const copyB = startClaim(clock, {
			at: 200,
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		expect(await settle(clock, [zero, copyA, copyB], 60_000)).toBe('answered');
		expect(
			runs([copyA, copyB]),
			`copies of delivery-1 that ran (A ${copyA.outcome}, B ${copyB.outcome})`,
		).toBe(1);
	});

	// A stated limit (docs/webhook-trigger.md): after a failed record the claim cannot tell its own landed write from
	// an earlier copy's, and runs rather than risk losing the delivery.
	test("a copy whose record failed (did not land) and whose retry finds the key an earlier execution recorded runs ('unsettled', a stated limit)", async () => {
		const { clock, table } = storeModel();
		const first = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		expect(await settle(clock, [first], 10_000)).toBe('answered');
		expect(first.outcome).toBe('new');
		// Minutes later a replay reaches another worker; its first keys write fails before landing (a DB hiccup), the retry works.
		const failsOnce = {
			'record-node': (n) => {
				if (n === 1) throw new Error('Connection terminated unexpectedly');
			},
		};
		const replay = startClaim(clock, {
			at: 60_000,
			scope: freshScope('p2'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })),
		});
		expect(await settle(clock, [replay], 120_000)).toBe('answered');
		expect(replay.outcome, 'a replay of a delivery that already ran, after a store error').toBe(
			'unsettled',
		);
	});
});

describe('a failed or hung read of the lock row', () => {
	test('one failed read while another process holds the lock: the copy is not run a second time', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] }); // the trigger's list exists (its records are updates)
		// p1 holds the lock (taken by ~1 s); its keys write lands 1 s after its read, at ~2 s (busy worker: 1 s between each read and its write).
		const p1 = startClaim(clock, {
			scope: freshScope('p1'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { gapMs: 1000 })),
		});
		// p2's first look at the lock row (at 1.5 s) fails once (a transient DB error); everything else works.
		const failsOnce = {
			count: (n) => {
				if (n === 1) throw new Error('Connection terminated unexpectedly');
			},
		};
		const p2 = startClaim(clock, {
			at: 1500,
			scope: freshScope('p2'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })),
		});
		expect(await settle(clock, [p1, p2], 60_000)).toBe('answered');
		expect(
			runs([p1, p2]),
			`copies of delivery-1 that ran (p1 ${p1.outcome}, p2 ${p2.outcome})`,
		).toBe(1);
	});

	test("a read of the lock row that never answers when the lock is given back: the process's later claims still answer", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		// count #1 polls, #2 checks the insert, #3 is the release's look at the row before deleting it: it hangs.
		const hooks = { count: (n) => (n === 3 ? never : undefined) };
		const first = startClaim(clock, {
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		const later = startClaim(clock, {
			at: 10_000,
			scope,
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
		});
		const result = await settle(clock, [first, later], 3_600_000);
		expect(first.outcome).toBe('new');
		expect(`${result}; later claim: ${later.outcome}`).toBe('answered; later claim: new');
	});
});

describe('the stated limits of a claim', () => {
	test('a read of the lock row that never answers: the claim runs within 4 minutes (a stated limit)', async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: { count: () => never } })),
		});
		expect(await settle(clock, [claim], 3_600_000)).toBe('answered');
		expect(claim.outcome).toBe('unsettled');
		expect(claim.answeredAt, 'ms until a claim without the lock runs').toBeLessThanOrEqual(
			4 * 60_000 + 1000,
		);
	});

	test('a batch write that failed slowly (59 s), then a healthy store: the other claims of the turn run or are retried, their executions do not fail', async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		const zero = startClaim(clock, {
			scope,
			key: 'delivery-0',
			store: claimStoreOf(
				helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } }),
			),
		});
		// The next turn's batch is written with the first claim's store: that write fails after 59 s; its retry takes 2 s and works.
		const slowFailure = {
			'record-node': async (n) => {
				if (n === 1) {
					await clock.wait(59_000);
					throw new Error('Connection terminated unexpectedly');
				}
				if (n === 2) await clock.wait(2000);
			},
		};
		const claims = [
			startClaim(clock, {
				at: 100,
				scope,
				key: 'delivery-1',
				store: claimStoreOf(helpersOf(table, clock, { hooks: slowFailure })),
			}),
		];
		for (let i = 2; i <= 4; i++)
			claims.push(
				startClaim(clock, {
					at: 100 + i,
					scope,
					key: `delivery-${i}`,
					store: claimStoreOf(helpersOf(table, clock)),
				}),
			);
		expect(await settle(clock, [zero, ...claims], 600_000)).toBe('answered');
		// claims.ts: "Past the turn's time: the rest run rather than hold the lock towards the lease."
		expect(claims.map((claim) => `${claim.key}: ${claim.outcome}`).join(', ')).not.toMatch(/error/);
	});
});
