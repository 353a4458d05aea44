// Review of #26, third round: schedules the current lock-based claim (nodes/VirtualMailboxTrigger/claims.ts,
// after ff4b5e9/2777af0) does not survive, against the faithful model of n8n's store in
// review-26b-store.mjs (the built claimDelivery, the ClaimStore exactly as execute() builds it with
// claimStoreOf, virtual time).
import { describe, expect, test } from 'vitest';
import { claimDelivery, claimPolicy, claimStoreOf, drain, lockValues, freshScope, hashOf, helpersOf, never, NODE, settle, startClaim, storeModel, WORKFLOW } from './review-26b-store.mjs';

const ENTRIES = { mode: 'entries', maxEntries: 10_000 };
const RUNS = new Set(['new', 'unsettled', 'unguarded']);
const runs = (claims) => claims.filter((claim) => RUNS.has(claim.outcome)).length;

/** startClaim with this process's random() fixed (its lease draw and poll jitter). */
function startClaimWith(clock, random, { at = 0, scope, key, store, warnings = [] }) {
	const claim = { key, outcome: undefined, answeredAt: undefined };
	claim.done = clock.wait(at).then(async () => {
		try {
			claim.outcome = await claimDelivery(scope, key, store, { now: clock.now, wait: clock.wait, random: () => random }, (m) => warnings.push(m));
		} catch (error) {
			claim.outcome = `error: ${error.message}`;
		}
		claim.answeredAt = clock.now();
	});
	return claim;
}

describe('review 26c: retry semantics of a failed record of keys', () => {
	test('two copies of one delivery in one turn whose batch write failed (did not land): only one runs', async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		// A first turn keeps the lock 1 s, so both copies (from two webhook processes, run on this worker) wait for the next turn together.
		const zero = startClaim(clock, { scope, key: 'delivery-0', store: claimStoreOf(helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } })) });
		// The batch is written with the first copy's store; its first write fails before landing (connection reset).
		const failsOnce = { 'record-node': (n) => { if (n === 1) throw new Error('Connection terminated unexpectedly'); } };
		const copyA = startClaim(clock, { at: 100, scope, key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })) });
		const copyB = startClaim(clock, { at: 200, scope, key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock)) });
		expect(await settle(clock, [zero, copyA, copyB], 60_000)).toBe('answered');
		expect(runs([copyA, copyB]), `copies of delivery-1 that ran (A ${copyA.outcome}, B ${copyB.outcome})`).toBe(1);
	});

	// A limit the README states: after a failed record the claim cannot tell its own landed write from
	// an earlier copy's, and runs rather than risk losing the delivery.
	test("a copy whose record failed (did not land) and whose retry finds the key an earlier execution recorded runs ('unsettled', README: limits of the claim)", async () => {
		const { clock, table } = storeModel();
		const first = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock)) });
		expect(await settle(clock, [first], 10_000)).toBe('answered');
		expect(first.outcome).toBe('new');
		// Minutes later a replay reaches another worker; its first keys write fails before landing (a DB hiccup), the retry works.
		const failsOnce = { 'record-node': (n) => { if (n === 1) throw new Error('Connection terminated unexpectedly'); } };
		const replay = startClaim(clock, { at: 60_000, scope: freshScope('p2'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })) });
		expect(await settle(clock, [replay], 120_000)).toBe('answered');
		expect(replay.outcome, 'a replay of a delivery that already ran, after a store error').toBe('unsettled');
	});
});

describe('review 26c: a failed or hung read of the lock row', () => {
	test('one failed read while another process holds the lock: the copy is not run a second time', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] }); // the trigger's list exists (its records are updates)
		// p1 holds the lock (taken by ~1 s); its keys write lands 1 s after its read, at ~2 s (busy worker: 1 s between each read and its write).
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { gapMs: 1000 })) });
		// p2's first look at the lock row (at 1.5 s) fails once (a transient DB error); everything else works.
		const failsOnce = { count: (n) => { if (n === 1) throw new Error('Connection terminated unexpectedly'); } };
		const p2 = startClaim(clock, { at: 1500, scope: freshScope('p2'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: failsOnce })) });
		expect(await settle(clock, [p1, p2], 60_000)).toBe('answered');
		expect(runs([p1, p2]), `copies of delivery-1 that ran (p1 ${p1.outcome}, p2 ${p2.outcome})`).toBe(1);
	});

	test("a read of the lock row that never answers when the lock is given back: the process's later claims still answer", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		// count #1 polls, #2 checks the insert, #3 is the release's look at the row before deleting it: it hangs.
		const hooks = { count: (n) => (n === 3 ? never : undefined) };
		const first = startClaim(clock, { scope, key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks })) });
		const later = startClaim(clock, { at: 10_000, scope, key: 'delivery-2', store: claimStoreOf(helpersOf(table, clock)) });
		const result = await settle(clock, [first, later], 3_600_000);
		expect(first.outcome).toBe('new');
		expect(`${result}; later claim: ${later.outcome}`).toBe('answered; later claim: new');
	});
});

describe('review 26c: the stated limits of a claim', () => {
	test('a read of the lock row that never answers: the claim runs within 4 minutes (README, limit 3)', async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, { scope: freshScope(), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: { count: () => never } })) });
		expect(await settle(clock, [claim], 3_600_000)).toBe('answered');
		expect(claim.outcome).toBe('unsettled');
		expect(claim.answeredAt, 'ms until a claim without the lock runs').toBeLessThanOrEqual(4 * 60_000 + 1000);
	});

	test("a batch write that failed slowly (59 s), then a healthy store: the other claims of the turn run or are retried, their executions do not fail", async () => {
		const { clock, table } = storeModel();
		const scope = freshScope();
		const zero = startClaim(clock, { scope, key: 'delivery-0', store: claimStoreOf(helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } })) });
		// The next turn's batch is written with the first claim's store: that write fails after 59 s; its retry takes 2 s and works.
		const slowFailure = { 'record-node': async (n) => { if (n === 1) { await clock.wait(59_000); throw new Error('Connection terminated unexpectedly'); } if (n === 2) await clock.wait(2000); } };
		const claims = [startClaim(clock, { at: 100, scope, key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: slowFailure })) })];
		for (let i = 2; i <= 4; i++) claims.push(startClaim(clock, { at: 100 + i, scope, key: `delivery-${i}`, store: claimStoreOf(helpersOf(table, clock)) }));
		expect(await settle(clock, [zero, ...claims], 600_000)).toBe('answered');
		// claims.ts: "Past the turn's time: the rest run rather than hold the lock towards the lease."
		expect(claims.map((claim) => `${claim.key}: ${claim.outcome}`).join(', ')).not.toMatch(/error/);
	});
});

describe("review 26c: another node's workflow-scope row", () => {
	test("a read that fails when the lock is given back: Remove Duplicates' values recorded into the lock are not deleted", async () => {
		const { clock, table } = storeModel();
		const hooks = { 'record-node': () => clock.wait(1000), count: (n) => { if (n === 3) throw new Error('Connection terminated unexpectedly'); } };
		const claim = startClaim(clock, { scope: freshScope(), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks })) });
		// Remove Duplicates (scope Workflow) records order-7 into the row while the claim holds it (README limit 2: kept).
		const removeDuplicates = helpersOf(table, clock);
		const rd = clock.wait(500).then(() => removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', ENTRIES));
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect((await rd).new).toEqual(['order-7']);
		expect(table.data(WORKFLOW) ?? 'row deleted', "the other node's recorded value").toContain(hashOf('order-7'));
	});

	test("Remove Duplicates with a small History Size (5) records into the held lock: its value is not deleted when the lock is given back", async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, { scope: freshScope(), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } })) });
		// RemoveDuplicatesV2 first counts the row (its History Size check: count + items <= 5), then records. Its
		// execution counts before the lock's insert (no row: 0), and records at 500 ms: it finds the lock's row,
		// appends order-7 and trims the list to its last 5 values (its History Size).
		const removeDuplicates = helpersOf(table, clock);
		let rdCount;
		const rd = removeDuplicates.getProcessedDataCount('workflow', { mode: 'entries', maxEntries: 5 }).then(async (count) => {
			rdCount = count;
			await clock.wait(500);
			return await removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', { mode: 'entries', maxEntries: 5 });
		});
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect(rdCount + 1, 'its History Size check passed').toBeLessThanOrEqual(5);
		expect((await rd).new).toEqual(['order-7']);
		expect(table.data(WORKFLOW) ?? 'row deleted', "the other node's recorded value").toContain(hashOf('order-7'));
	});

	const sevenOrders = () => Array.from({ length: 7 }, (_, i) => hashOf(`order-${i + 1}`));

	// A limit the README states: a row of exactly lockSize values looks like a held lock until the
	// lease; a process that found it to be another node's does not wait again while it stays.
	test('a Remove Duplicates row that holds 7 values: the first claim of a process waits out the lease (README, limit 2), later ones do not', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: sevenOrders() });
		const warnings = [];
		const scope = freshScope();
		const claim = startClaim(clock, { scope, key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock)), warnings });
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		expect(claim.outcome).toBe('unguarded');
		expect(claim.answeredAt, 'the first claim: at most the longest lease').toBeLessThan(1.5 * claimPolicy.leaseMs + 10_000);
		const later = startClaim(clock, { at: 1000, scope, key: 'delivery-2', store: claimStoreOf(helpersOf(table, clock)), warnings });
		expect(await settle(clock, [later], 600_000)).toBe('answered');
		expect(later.outcome).toBe('unguarded');
		expect(later.answeredAt - claim.answeredAt - 1000, 'ms before a later claim in that process answers').toBeLessThan(10_000);
		expect(warnings).toHaveLength(1);
	});

	// A limit the README states: the one takeover of such a row writes the lock's values into it and
	// takes them out again, which can erase a value that node records in between (as here).
	test('a Remove Duplicates row that holds 7 values: its values survive the takeover but for one recorded during it (README, limit 2)', async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: sevenOrders() });
		const removeDuplicates = helpersOf(table, clock);
		let rd;
		// This process is busy 300 ms between a read and its write; Remove Duplicates records order-8
		// 100 ms into the claim's (lease takeover) record of the lock's values into its row.
		const hooks = { 'record-workflow': () => void (rd ??= clock.wait(100).then(() => removeDuplicates.checkProcessedAndRecord(['order-8'], 'workflow', ENTRIES))) };
		const claim = startClaim(clock, { scope: freshScope(), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks, gapMs: 300 })) });
		expect(await settle(clock, [claim], 600_000)).toBe('answered');
		await drain(clock);
		if (rd) expect((await rd).new).toEqual(['order-8']); // Remove Duplicates was told order-8 is new and recorded it
		expect(table.data(WORKFLOW), "the other node's row: its seven values").toEqual(expect.arrayContaining(sevenOrders()));
		for (const value of lockValues()) expect(table.data(WORKFLOW), "the lock's values are taken out again").not.toContain(hashOf(value));
	});
});

describe('review 26c: a late keys write and the next holder', () => {
	test("a holder whose keys write lands after another process took the lock over does not delete that process's lock", async () => {
		const { clock, table } = storeModel();
		// p1's keys write hangs 170 s, then lands (past its 60 s deadline: its claim answered 'unsettled').
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: { 'record-node': (n) => n === 1 && clock.wait(170_000) } })) });
		// p2 watches the lock from 1 s, takes it over after its lease (random 0.5: 150 s), and records its keys for 40 s.
		let lockWhileP2Records;
		const p2Hooks = { 'record-node': async () => { await clock.wait(40_000); lockWhileP2Records = table.rows.has(WORKFLOW); } };
		const p2 = startClaimWith(clock, 0.5, { at: 1000, scope: freshScope('p2'), key: 'delivery-2', store: claimStoreOf(helpersOf(table, clock, { hooks: p2Hooks })) });
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p1.outcome).toBe('unsettled');
		expect(p2.outcome).toBe('new');
		expect(lockWhileP2Records, "p2's lock is still there while p2 records (p1 gave back a lock it no longer held)").toBe(true);
	});

	test("a delete of the lock past its deadline that lands later does not delete the next holder's lock (no lease takeover involved)", async () => {
		const { clock, table } = storeModel();
		// p1's first delete of its lock reaches the store only after 61 s (past the 60 s deadline); the release is then tried again.
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: { delete: (n) => n === 1 && clock.wait(61_000) } })) });
		// p2 waits for the lock from 1 s (well within its lease), takes it when it is free, and records its keys for 5 s.
		let lockWhileP2Records;
		const p2Hooks = { 'record-node': async () => { await clock.wait(5000); lockWhileP2Records = table.rows.has(WORKFLOW); } };
		const p2 = startClaim(clock, { at: 1000, scope: freshScope('p2'), key: 'delivery-2', store: claimStoreOf(helpersOf(table, clock, { hooks: p2Hooks })) });
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.answeredAt, 'p2 took the lock after p1 gave it back, before any lease').toBeLessThan(100_000);
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});
});
