// Review of #26, fifth round: bae9053 says the holder gives the lock back only "before any other
// process could take the lock over (0.9 of the lease after it was taken), and nothing is deleted
// after that". takeTurn measures that 0.9 lease from `heldAt`, the moment acquireLock returned,
// which is after the count that follows the lock's insert (recordLockOnce), a count with no
// deadline. Against the model of n8n's store in review-26b-store.mjs.
import { describe, expect, test } from 'vitest';
import { claimStoreOf, drain, freshScope, hashOf, helpersOf, NODE, settle, startClaim, storeModel, WORKFLOW } from './review-26b-store.mjs';

describe('review 26e: the lease of a give-back counts from the insert, not from the count after it', () => {
	test("a holder whose count after its insert answers after the lease does not delete the lock another process took over and still holds", async () => {
		const { clock, table } = storeModel();
		const deletes = [];
		// p1 inserts the lock at ~0 s; the count that follows its insert (its 2nd count) answers only at 160 s.
		const p1Helpers = helpersOf(table, clock, {
			hooks: { count: (n) => n === 2 && clock.wait(160_000), delete: () => deletes.push({ by: 'p1', at: clock.now(), p2Answered: p2.outcome !== undefined }) },
		});
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(p1Helpers) });
		// p2 (another worker) waits from 1 s, takes the lock over after its lease (~150 s), and its record of keys takes 30 s.
		const p2Helpers = helpersOf(table, clock, { hooks: { 'record-node': () => clock.wait(30_000) } });
		const p2 = startClaim(clock, { at: 1000, scope: freshScope('p2'), key: 'delivery-5', store: claimStoreOf(p2Helpers) });
		expect(await settle(clock, [p1, p2], 600_000)).toBe('answered');
		await drain(clock);
		// p1 took its lock at ~0 s: by the change's own rule nothing it deletes may land after 0.9 x 120 s = 108 s.
		const late = deletes.filter((d) => d.at > 108_000);
		expect(late, `p1 deleted the workflow row at ${deletes.map((d) => `${d.at / 1000} s (p2 answered: ${d.p2Answered})`).join(', ')}; p1 ${p1.outcome}, p2 ${p2.outcome}`).toEqual([]);
	});

	test('so a copy runs twice: p1 deletes the lock p2 holds while p2 records, p3 takes it and records the same delivery', async () => {
		const { clock, table } = storeModel();
		table.put(NODE, { mode: 'entries', data: [hashOf('delivery-0')] }); // the node's row exists (earlier deliveries)
		const p1 = startClaim(clock, { scope: freshScope('p1'), key: 'delivery-1', store: claimStoreOf(helpersOf(table, clock, { hooks: { count: (n) => n === 2 && clock.wait(160_000) } })) });
		// p2: its record of keys reads the node's row, then writes 30 s later (a busy worker; well within the lease and the 1-minute deadline).
		const fast = helpersOf(table, clock);
		const slow = helpersOf(table, clock, { gapMs: 30_000 });
		const p2Helpers = { ...fast, checkProcessedAndRecord: (items, scope, options) => (scope === 'node' ? slow : fast).checkProcessedAndRecord(items, scope, options) };
		const p2 = startClaim(clock, { at: 1000, scope: freshScope('p2'), key: 'delivery-5', store: claimStoreOf(p2Helpers) });
		// p3 (a third worker) gets the other copy of delivery-5 at 162 s.
		const p3 = startClaim(clock, { at: 162_000, scope: freshScope('p3'), key: 'delivery-5', store: claimStoreOf(helpersOf(table, clock)) });
		expect(await settle(clock, [p1, p2, p3], 600_000)).toBe('answered');
		const ran = [p2, p3].filter((c) => ['new', 'unsettled', 'unguarded'].includes(c.outcome));
		expect(ran.length, `copies of delivery-5 that ran: p2 ${p2.outcome} at ${p2.answeredAt / 1000} s, p3 ${p3.outcome} at ${p3.answeredAt / 1000} s`).toBe(1);
	});
});
