// The claim's lock (nodes/VirtualMailboxTrigger/claims.ts) lives in the workflow-scope row of n8n's
// deduplication store, the row a Remove Duplicates node with scope Workflow also writes to. What
// happens to that node's values and to the claim when both use the row, in virtual time, against
// the model of n8n's store (test/support/deduplication-store.mjs). The limits tested here are stated
// in docs/webhook-trigger.md.
import { describe, expect, test } from 'vitest';
import {
	claimPolicy,
	claimStoreOf,
	drain,
	ENTRIES,
	freshScope,
	hashOf,
	helpersOf,
	lockHash,
	lockValues,
	runs,
	settle,
	startClaim,
	storeModel,
	storeOf,
	WORKFLOW,
} from '../../support/deduplication-store.mjs';

describe('a Remove Duplicates node (scope Workflow) running while the lock is held', () => {
	test('its values recorded into the lock row survive the holder giving the lock back', async () => {
		const { clock, table } = storeModel();
		const slowKeys = { 'record-node': () => clock.wait(1000) }; // the holder's keys write takes 1 s
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: slowKeys })),
		});
		// Remove Duplicates, scope Workflow, "entries": its execution at 500 ms finds the row (the lock) and appends.
		const removeDuplicates = helpersOf(table, clock);
		const rd = clock
			.wait(500)
			.then(() => removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', ENTRIES));
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect((await rd).new).toEqual(['order-7']); // it was told order-7 is new and recorded
		// n8n's Remove Duplicates now believes order-7 processed; the claim's deleteLock erased it.
		expect(table.data(WORKFLOW) ?? 'row deleted', "the other node's recorded value").toContain(
			hashOf('order-7'),
		);
	});

	// A stated limit (docs/webhook-trigger.md; not fixable with this lock: the row's mode is 'entries' while it is held).
	test("its 'latest' mode execution fails with n8n's mode error while the claim holds the lock (a stated limit)", async () => {
		const { clock, table } = storeModel();
		const slowKeys = { 'record-node': () => clock.wait(1000) };
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks: slowKeys })),
		});
		const removeDuplicates = helpersOf(table, clock);
		const rd = clock.wait(500).then(() =>
			removeDuplicates
				.checkProcessedAndRecord(['41'], 'workflow', { mode: 'latestIncrementalKey' })
				.then(
					() => 'ok',
					(error) => `error: ${error.message}`,
				),
		);
		await settle(clock, [claim], 10_000);
		expect(await rd).toMatch(/incompatible setting/);
	});

	test('a foreign one-value row: the first claim of each process does not wait out the lease', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: [hashOf('order-1')] });
		const warnings = [];
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock)),
			warnings,
		});
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		expect(claim.outcome).toBe('unguarded');
		expect(
			claim.answeredAt,
			'ms before a claim beside a one-value foreign row answers',
		).toBeLessThan(10_000);
	});

	test('a foreign one-value row: the claim never writes to it, so it cannot erase a value Remove Duplicates records meanwhile', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: [hashOf('order-1')] });
		const removeDuplicates = helpersOf(table, clock);
		let rd;
		// This process is busy 300 ms between each read and its write; Remove Duplicates records
		// order-2 100 ms into the claim's removeProcessed (read [order-1, LOCK], write [order-1]).
		const hooks = {
			remove: () =>
				void (rd = clock
					.wait(100)
					.then(() => removeDuplicates.checkProcessedAndRecord(['order-2'], 'workflow', ENTRIES))),
		};
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks, gapMs: 300 })),
		});
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		await drain(clock);
		// A one-value row is not the lock (it holds claimPolicy.lockSize values): the claim never writes to it.
		expect(rd, "the claim took nothing out of the other node's row").toBeUndefined();
		expect(claim.outcome).toBe('unguarded');
		expect(table.data(WORKFLOW)).toEqual([hashOf('order-1')]);
		expect(table.data(WORKFLOW)).not.toContain(lockHash());
	});
});

describe("once the other node's row is gone (its data cleaned), the claim is guarded again", () => {
	test('a process that once saw a foreign row does not run a copy unguarded while another process holds the lock', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: ['order-1', 'order-2', 'order-3'].map(hashOf) });
		const p1Scope = freshScope('p1');
		const p1 = () => claimStoreOf(helpersOf(table, clock));
		const before = startClaim(clock, { scope: p1Scope, key: 'delivery-0', store: p1() });
		await settle(clock, [before], 1000);
		expect(before.outcome).toBe('unguarded');
		// The user cleans Remove Duplicates' workflow-scope data (its Clean Database: clearAllProcessedItems) and sets it to scope Node.
		table.rows.delete(WORKFLOW); // what clearAllProcessedItems('workflow') commits
		// p2 (busy: 1 s between each read and its write) takes the lock for delivery-1; p1 gets a copy of delivery-1 while p2 holds it.
		const copyInP2 = startClaim(clock, {
			at: 1000,
			scope: freshScope('p2'),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { gapMs: 1000 })),
		});
		const copyInP1 = startClaim(clock, {
			at: 2500,
			scope: p1Scope,
			key: 'delivery-1',
			store: p1(),
		});
		expect(await settle(clock, [copyInP1, copyInP2], 600_000)).toBe('answered');
		const ran = [copyInP1, copyInP2].filter((c) => c.outcome !== 'duplicate').map((c) => c.outcome);
		expect(ran, 'the outcomes of the copies of delivery-1 that ran').toHaveLength(1);
	});
});

describe("another node's values in the workflow-scope row", () => {
	test("a read that fails when the lock is given back: Remove Duplicates' values recorded into the lock are not deleted", async () => {
		const { clock, table } = storeModel();
		const hooks = {
			'record-node': () => clock.wait(1000),
			count: (n) => {
				if (n === 3) throw new Error('Connection terminated unexpectedly');
			},
		};
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks })),
		});
		// Remove Duplicates (scope Workflow) records order-7 into the row while the claim holds it (kept).
		const removeDuplicates = helpersOf(table, clock);
		const rd = clock
			.wait(500)
			.then(() => removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', ENTRIES));
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect((await rd).new).toEqual(['order-7']);
		expect(table.data(WORKFLOW) ?? 'row deleted', "the other node's recorded value").toContain(
			hashOf('order-7'),
		);
	});

	test('Remove Duplicates with a small History Size (5) records into the held lock: its value is not deleted when the lock is given back', async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(
				helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } }),
			),
		});
		// RemoveDuplicatesV2 first counts the row (its History Size check: count + items <= 5), then records. Its
		// execution counts before the lock's insert (no row: 0), and records at 500 ms: it finds the lock's row,
		// appends order-7 and trims the list to its last 5 values (its History Size).
		const removeDuplicates = helpersOf(table, clock);
		let rdCount;
		const rd = removeDuplicates
			.getProcessedDataCount('workflow', { mode: 'entries', maxEntries: 5 })
			.then(async (count) => {
				rdCount = count;
				await clock.wait(500);
				return await removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', {
					mode: 'entries',
					maxEntries: 5,
				});
			});
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect(rdCount + 1, 'its History Size check passed').toBeLessThanOrEqual(5);
		expect((await rd).new).toEqual(['order-7']);
		expect(table.data(WORKFLOW) ?? 'row deleted', "the other node's recorded value").toContain(
			hashOf('order-7'),
		);
	});

	const sevenOrders = () => Array.from({ length: 7 }, (_, i) => hashOf(`order-${i + 1}`));

	// A stated limit (docs/webhook-trigger.md): a row of exactly lockSize values looks like a held lock until the
	// lease; a process that found it to be another node's does not wait again while it stays.
	test('a Remove Duplicates row that holds 7 values: the first claim of a process waits out the lease (a stated limit), later ones do not', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: sevenOrders() });
		const warnings = [];
		const scope = freshScope();
		const claim = startClaim(clock, {
			scope,
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock)),
			warnings,
		});
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		expect(claim.outcome).toBe('unguarded');
		expect(claim.answeredAt, 'the first claim: at most the longest lease').toBeLessThan(
			1.5 * claimPolicy.leaseMs + 10_000,
		);
		const later = startClaim(clock, {
			at: 1000,
			scope,
			key: 'delivery-2',
			store: claimStoreOf(helpersOf(table, clock)),
			warnings,
		});
		expect(await settle(clock, [later], 600_000)).toBe('answered');
		expect(later.outcome).toBe('unguarded');
		expect(
			later.answeredAt - claim.answeredAt - 1000,
			'ms before a later claim in that process answers',
		).toBeLessThan(10_000);
		expect(warnings).toHaveLength(1);
	});

	// A stated limit (docs/webhook-trigger.md): the one takeover of such a row writes the lock's values into it and
	// takes them out again, which can erase a value that node records in between (as here).
	test('a Remove Duplicates row that holds 7 values: its values survive the takeover but for one recorded during it (a stated limit)', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: sevenOrders() });
		const removeDuplicates = helpersOf(table, clock);
		let rd;
		// This process is busy 300 ms between a read and its write; Remove Duplicates records order-8
		// 100 ms into the claim's (lease takeover) record of the lock's values into its row.
		const hooks = {
			'record-workflow': () =>
				void (rd ??= clock
					.wait(100)
					.then(() => removeDuplicates.checkProcessedAndRecord(['order-8'], 'workflow', ENTRIES))),
		};
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: claimStoreOf(helpersOf(table, clock, { hooks, gapMs: 300 })),
		});
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		await drain(clock);
		if (rd) expect((await rd).new).toEqual(['order-8']); // Remove Duplicates was told order-8 is new and recorded it
		expect(table.data(WORKFLOW), "the other node's row: its seven values").toEqual(
			expect.arrayContaining(sevenOrders()),
		);
		for (const value of lockValues())
			expect(table.data(WORKFLOW), "the lock's values are taken out again").not.toContain(
				hashOf(value),
			);
	});
});

describe("a row trimmed to exactly the lock's 7 values", () => {
	// A stated limit (docs/webhook-trigger.md): a count cannot tell the lock from a row trimmed to exactly
	// its 7 values, and telling them apart would cost every turn a write; this test keeps the docs true.
	test('Remove Duplicates (scope Workflow, History Size 7) records into the held lock, trimming it to 7 values: the row is given back as the lock, with that value (a stated limit)', async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, {
			scope: freshScope(),
			key: 'delivery-1',
			store: storeOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } }),
		});
		// Remove Duplicates counts (no row yet: 0 + 1 item <= 7 passes its size check), then records order-7 at 500 ms
		// into the lock's row, trimmed to its History Size: 6 lock values and order-7, a count of 7.
		const removeDuplicates = helpersOf(table, clock);
		const rd = removeDuplicates
			.getProcessedDataCount('workflow', { mode: 'entries', maxEntries: 7 })
			.then(async () => {
				await clock.wait(500);
				return await removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', {
					mode: 'entries',
					maxEntries: 7,
				});
			});
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect((await rd).new).toEqual(['order-7']);
		expect(
			table.data(WORKFLOW) ?? 'row deleted',
			'the row trimmed to exactly 7 values is deleted as the lock',
		).toBe('row deleted');
	});
});

describe("a 7-value row taken for another node's, then cleared", () => {
	test("after the 7-value Remove Duplicates row is cleared (as the warning says), a process's copy is not recorded without the lock while another process holds it", async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, {
			mode: 'entries',
			data: Array.from({ length: 7 }, (_, i) => hashOf(`order-${i + 1}`)),
		});
		const scope = freshScope('p1');
		const first = startClaim(clock, { scope, key: 'delivery-1', store: storeOf(table, clock) });
		expect(await settle(clock, [first], 600_000)).toBe('answered');
		expect(first.outcome).toBe('unguarded'); // the row was that node's: p1 now takes a 7-value row for foreign
		await clock.run(() => clock.now() >= 200_000).catch(() => undefined);
		table.rows.delete(WORKFLOW); // the user clears that node's Workflow-scope history, as the warning asks
		// p2 (busy worker: 3 s between each read and its write) takes the free lock at ~303 s and records delivery-9;
		// p1's copy of delivery-9 arrives at 304 s, while p2 holds the lock.
		const p2 = startClaim(clock, {
			at: 300_000 - clock.now(),
			scope: freshScope('p2'),
			key: 'delivery-9',
			store: storeOf(table, clock, { gapMs: 3000 }),
		});
		const copy = startClaim(clock, {
			at: 304_000 - clock.now(),
			scope,
			key: 'delivery-9',
			store: storeOf(table, clock),
		});
		expect(await settle(clock, [p2, copy], 900_000)).toBe('answered');
		expect(
			runs([p2, copy]),
			`copies of delivery-9 that ran (p1 ${copy.outcome}, p2 ${p2.outcome})`,
		).toBe(1);
	});
});
