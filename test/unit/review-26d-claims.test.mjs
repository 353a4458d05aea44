// Review of #26, fourth round: what c29fea2/0ac542c added to the lock-based claim
// (nodes/VirtualMailboxTrigger/claims.ts): the turn's give-up time from its oldest claim, giveBack,
// the late-record give-back window, per-key retries, sevenIsForeign. Against the model of n8n's
// store in review-26b-store.mjs (the built claimDelivery, the ClaimStore as execute() builds it).
import { describe, expect, test } from 'vitest';
import { claimDelivery, claimStoreOf, drain, freshScope, hashOf, helpersOf, never, NODE, settle, startClaim, storeModel, WORKFLOW } from './review-26b-store.mjs';

const ENTRIES = { mode: 'entries', maxEntries: 10_000 };
const RUNS = new Set(['new', 'unsettled', 'unguarded']);
const runs = (claims) => claims.filter((claim) => RUNS.has(claim.outcome)).length;
const storeOf = (table, clock, options) => claimStoreOf(helpersOf(table, clock, options));

/** startClaim with this process's random() fixed (its lease draw and poll jitter). */
function startClaimWith(clock, random, { at = 0, scope, key, store }) {
	const claim = { key, outcome: undefined, answeredAt: undefined };
	claim.done = clock.wait(at).then(async () => {
		try {
			claim.outcome = await claimDelivery(scope, key, store, { now: clock.now, wait: clock.wait, random: () => random }, () => undefined);
		} catch (error) {
			claim.outcome = `error: ${error.message}`;
		}
		claim.answeredAt = clock.now();
	});
	return claim;
}

describe("review 26d: the turn's give-up time from its oldest claim", () => {
	test('a claim asked 2 s before its turn, with the lock free, is not recorded without the lock (another process records its copy at that moment)', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] });
		const scope = freshScope('p1');
		// p1's first turn: its look at the lock row stalls (the turn gives up at its 4-minute limit), then its keys write takes 5 s.
		const a = startClaim(clock, { scope, key: 'delivery-0', store: storeOf(table, clock, { hooks: { count: () => never, 'record-node': (n) => n === 1 && clock.wait(5000) } }) });
		// b waits through that turn (asked at 1 s); c, a copy of delivery-9, is asked at 243 s, 2 s before p1's next turn.
		const b = startClaim(clock, { at: 1000, scope, key: 'delivery-8', store: storeOf(table, clock) });
		const c = startClaim(clock, { at: 243_000, scope, key: 'delivery-9', store: storeOf(table, clock) });
		// p2 (another worker) got the other copy of delivery-9 at 241.5 s: it takes the free lock and records (3 s between its read and write: a busy worker).
		const p2 = startClaim(clock, { at: 241_500, scope: freshScope('p2'), key: 'delivery-9', store: storeOf(table, clock, { gapMs: 3000 }) });
		expect(await settle(clock, [a, b, c, p2], 600_000)).toBe('answered');
		expect(runs([c, p2]), `copies of delivery-9 that ran (p1 ${c.outcome} after ${(c.answeredAt - 243_000) / 1000} s, p2 ${p2.outcome})`).toBe(1);
	});
});

describe('review 26d: giveBack deletes the row at exactly 7 values', () => {
	// A limit the README states (limit 2): a count cannot tell the lock from a row trimmed to exactly
	// its 7 values, and telling them apart would cost every turn a write; this test keeps the README true.
	test('Remove Duplicates (scope Workflow, History Size 7) records into the held lock, trimming it to 7 values: the row is given back as the lock, with that value (README limit 2)', async () => {
		const { clock, table } = storeModel();
		const claim = startClaim(clock, { scope: freshScope(), key: 'delivery-1', store: storeOf(table, clock, { hooks: { 'record-node': () => clock.wait(1000) } }) });
		// Remove Duplicates counts (no row yet: 0 + 1 item <= 7 passes its size check), then records order-7 at 500 ms
		// into the lock's row, trimmed to its History Size: 6 lock values and order-7, a count of 7.
		const removeDuplicates = helpersOf(table, clock);
		const rd = removeDuplicates.getProcessedDataCount('workflow', { mode: 'entries', maxEntries: 7 }).then(async () => {
			await clock.wait(500);
			return await removeDuplicates.checkProcessedAndRecord(['order-7'], 'workflow', { mode: 'entries', maxEntries: 7 });
		});
		expect(await settle(clock, [claim], 10_000)).toBe('answered');
		await drain(clock);
		expect((await rd).new).toEqual(['order-7']);
		expect(table.data(WORKFLOW) ?? 'row deleted', 'the row trimmed to exactly 7 values is deleted as the lock').toBe('row deleted');
	});
});

describe("review 26d: giving the lock back is not bounded by the lease", () => {
	test("a late keys record that lands inside the window (100 s), then a slow count (30 s): the next holder's lock is not deleted", async () => {
		const { clock, table } = storeModel();
		// p1's keys write lands at 100 s (past its deadline: 'unsettled'; before heldAt + 108 s, so the lock is given back);
		// giveBack's look at the row (p1's third count) takes 30 s.
		const hooks = { 'record-node': (n) => n === 1 && clock.wait(100_000), count: (n) => n === 3 && clock.wait(30_000) };
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: storeOf(table, clock, { hooks }) });
		// p2 watches from 1 s, takes the lock over after its lease (random 0: 120 s) and records its keys for 40 s.
		let lockWhileP2Records;
		const p2Hooks = { 'record-node': async () => { await clock.wait(40_000); lockWhileP2Records = table.rows.has(WORKFLOW); } };
		const p2 = startClaimWith(clock, 0, { at: 1000, scope: freshScope('p2'), key: 'delivery-2', store: storeOf(table, clock, { hooks: p2Hooks }) });
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.outcome).toBe('new');
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});

	test("a retry started at 59 s holds the lock to the lease (README limit 4: 'within the turn's minute'): its give-back does not delete the next holder's lock", async () => {
		const { clock, table } = storeModel();
		// p1's keys write fails after 59 s; the retry (started inside the minute) answers after 59.5 s; giveBack's count takes 3 s.
		const hooks = {
			'record-node': async (n) => { if (n === 1) { await clock.wait(59_000); throw new Error('Connection terminated unexpectedly'); } if (n === 2) await clock.wait(59_500); },
			count: (n) => n === 3 && clock.wait(3000),
		};
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: storeOf(table, clock, { hooks }) });
		let lockWhileP2Records;
		const p2Hooks = { 'record-node': async () => { await clock.wait(10_000); lockWhileP2Records = table.rows.has(WORKFLOW); } };
		const p2 = startClaimWith(clock, 0, { at: 1000, scope: freshScope('p2'), key: 'delivery-2', store: storeOf(table, clock, { hooks: p2Hooks }) });
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		expect(p2.outcome).toBe('new');
		expect(lockWhileP2Records, "p2's lock is still there while p2 records").toBe(true);
	});
});

describe('review 26d: sevenIsForeign outlives the row it was about', () => {
	test("after the 7-value Remove Duplicates row is cleared (as the warning says), a process's copy is not recorded without the lock while another process holds it", async () => {
		const { clock, table } = storeModel();
		table.put(WORKFLOW, { mode: 'entries', data: Array.from({ length: 7 }, (_, i) => hashOf(`order-${i + 1}`)) });
		const scope = freshScope('p1');
		const first = startClaim(clock, { scope, key: 'delivery-1', store: storeOf(table, clock) });
		expect(await settle(clock, [first], 600_000)).toBe('answered');
		expect(first.outcome).toBe('unguarded'); // the row was that node's: p1 now takes a 7-value row for foreign
		await clock.run(() => clock.now() >= 200_000).catch(() => undefined);
		table.rows.delete(WORKFLOW); // the user clears that node's Workflow-scope history, as the warning asks
		// p2 (busy worker: 3 s between each read and its write) takes the free lock at ~303 s and records delivery-9;
		// p1's copy of delivery-9 arrives at 304 s, while p2 holds the lock.
		const p2 = startClaim(clock, { at: 300_000 - clock.now(), scope: freshScope('p2'), key: 'delivery-9', store: storeOf(table, clock, { gapMs: 3000 }) });
		const copy = startClaim(clock, { at: 304_000 - clock.now(), scope, key: 'delivery-9', store: storeOf(table, clock) });
		expect(await settle(clock, [p2, copy], 900_000)).toBe('answered');
		expect(runs([p2, copy]), `copies of delivery-9 that ran (p1 ${copy.outcome}, p2 ${p2.outcome})`).toBe(1);
	});
});
