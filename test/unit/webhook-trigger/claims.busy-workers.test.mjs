// The claim (nodes/VirtualMailboxTrigger/claims.ts) on workers that are busy or whose store is
// slow: copies of one delivery on several processes, writes that trail their reads by seconds, a
// write that never answers or fails, in virtual time, against the model of n8n's store
// (test/support/deduplication-store.mjs).
import { afterEach, describe, expect, test } from 'vitest';
import {
	claimPolicy,
	processOf,
	rng,
	tableOf,
	virtualClock,
} from '../../support/deduplication-store.mjs';

const POLICY = { ...claimPolicy };
afterEach(() => Object.assign(claimPolicy, POLICY));

describe('copies on a busy worker and an idle one', () => {
	for (const gapMs of [1000, 400]) {
		test(`two copies at the same moment, one on a worker whose update trails its read by ${gapMs} ms, the other on an idle worker: exactly one runs`, async () => {
			const clock = virtualClock();
			const model = tableOf(clock);
			const busy = processOf(model, clock, { timing: { gap: () => gapMs, locked: () => 5 } });
			const idle = processOf(model, clock, { timing: { locked: () => 5 } });
			// An earlier delivery: the node's row exists (its first insert alone would be atomic).
			expect(await clock.run(idle.claim('earlier'))).toBe('new');
			const outcomes = await clock.run(Promise.all([busy.claim('k'), idle.claim('k')]));
			expect(outcomes.sort(), `outcomes ${outcomes}`).toEqual(['duplicate', 'new']);
		});
	}
});

describe('a write that never answers or fails holds up nothing else', () => {
	for (const hung of ['recordKeys', 'recordLock']) {
		test(`a ${hung} write that never answers (a hung connection): later claims of the same node in that process still finish, and other processes' claims too`, async () => {
			const bound =
				60_000 + claimPolicy.maxClaimMs + claimPolicy.writeDeadlineMs + claimPolicy.leaseMs;
			const clock = virtualClock({ limitMs: bound });
			const model = tableOf(clock);
			let hangs = 1;
			const stuck = processOf(model, clock, {
				timing: {
					intercept: (op) => (op === hung && hangs-- > 0 ? new Promise(() => {}) : undefined),
				},
			});
			const other = processOf(model, clock);
			const first = stuck.claim('stuck').catch((error) => `failed: ${error.message}`);
			// A distinct delivery a minute later in the same process, and one in another process.
			const later = clock
				.wait(60_000)
				.then(() => Promise.all([stuck.claim('later'), other.claim('elsewhere')]));
			const outcomes = await clock.run(Promise.all([first, later]));
			// Nothing is lost: each runs (new, or unsettled when the store did not answer in time).
			expect(
				outcomes.flat().filter((o) => o === 'duplicate' || String(o).startsWith('failed')),
			).toEqual([]);
		});
	}

	test('one failing write fails only the claim it was made for: the other executions whose keys were batched into it are not failed with it', async () => {
		const clock = virtualClock();
		const model = tableOf(clock);
		const writes = [];
		const p = processOf(model, clock, {
			timing: {
				locked: () => 5,
				intercept: (op, values) => {
					if (op !== 'recordKeys') return undefined;
					writes.push(values);
					return values.includes('c')
						? Promise.reject(new Error('the write of c failed'))
						: undefined;
				},
			},
		});
		// The first claim's turn is under way; three more wait and are recorded together in the next.
		const first = p.claim('a');
		const waiting = ['b', 'c', 'd'].map((key) =>
			p.claim(key).then(
				(o) => o,
				(e) => `failed: ${e.message}`,
			),
		);
		const results = await clock.run(Promise.all([first, ...waiting]));
		expect(writes[1], 'b, c and d went in one write').toEqual(['b', 'c', 'd']);
		expect(results).toEqual(['new', 'new', 'failed: the write of c failed', 'new']);
		// The failed claim's write did not land: a retry of c (n8n retrying the execution) runs it.
		expect(await clock.run(processOf(model, clock).claim('c'))).toBe('new');
		expect(await clock.run(processOf(model, clock).claim('b'))).toBe('duplicate');
	});

	test('a batch write that fails once is tried again per key: every claim in it answers', async () => {
		const clock = virtualClock();
		const model = tableOf(clock);
		let failures = 1;
		const p = processOf(model, clock, {
			timing: {
				intercept: (op, values) =>
					op === 'recordKeys' && values.length > 1 && failures-- > 0
						? Promise.reject(new Error('connection reset'))
						: undefined,
			},
		});
		const first = p.claim('a');
		const outcomes = await clock.run(
			Promise.all([first, ...['b', 'c', 'd'].map((key) => p.claim(key))]),
		);
		expect(outcomes).toEqual(['new', 'new', 'new', 'new']);
		expect(failures).toBe(0);
	});
});

describe('slow writes, all their time inside the row lock', () => {
	test('4 workers, writes of 0.4-1.2 s, 60 deliveries over 20 s (seed 7): each runs exactly once', async () => {
		const random = rng(7);
		const clock = virtualClock();
		const model = tableOf(clock);
		const views = Array.from({ length: 4 }, () =>
			processOf(model, clock, { timing: { locked: () => 400 * (1 + 2 * random()) }, random }),
		);
		const claims = [];
		for (let d = 0; d < 60; d++) {
			const copies = 1 + Math.floor(random() * 4);
			const first = Math.floor(random() * 4);
			for (let c = 0; c < copies; c++)
				claims.push(
					clock
						.wait(random() * 20_000)
						.then(() => views[(first + c) % 4].claim(`d${d}`).then((outcome) => [d, outcome])),
				);
		}
		const outcomes = Array.from({ length: 60 }, () => []);
		for (const [d, outcome] of await clock.run(Promise.all(claims))) outcomes[d].push(outcome);
		const wrong = outcomes
			.map((o, d) => [d, o])
			.filter(
				([, o]) =>
					o.filter((x) => x !== 'duplicate').length !== 1 ||
					o.some((x) => x !== 'new' && x !== 'duplicate'),
			);
		expect(wrong.map(([d, o]) => `d${d}: ${o}`)).toEqual([]);
	});
});

describe('the time a burst of claims takes (virtual time)', () => {
	test("a burst of 10 claims on one worker with 5 ms writes, of which the worker's first took 400 ms (a cold connection, the row's insert): the claims' mean stays within 733 ms", async () => {
		const clock = virtualClock();
		const model = tableOf(clock);
		let n = 0;
		const p = processOf(model, clock, { timing: { locked: () => (n++ === 0 ? 400 : 5) } });
		const times = await clock.run(
			Promise.all(Array.from({ length: 10 }, (_, i) => p.claim(`k${i}`).then(() => clock.now()))),
		);
		const mean = times.reduce((a, b) => a + b, 0) / times.length;
		expect(mean).toBeLessThanOrEqual(733);
	});
});

/**
 * Seeded schedules with busy workers: each process has a gap of up to `gapMax` ms between reading
 * a row and its write reaching it (outside the lock), each write `lockedMs` to 3x`lockedMs` inside
 * it; `deliveries` deliveries, each copied to 1 to `processes` processes, all within `spread` ms.
 * Answers the outcomes per delivery.
 */
async function busySchedule(seed, { processes, deliveries, spread, gapMax, lockedMs }) {
	const random = rng(seed);
	const clock = virtualClock();
	const model = tableOf(clock);
	const views = Array.from({ length: processes }, () => {
		const processGap = gapMax * random();
		const timing = {
			gap: () => processGap * random(),
			locked: () => lockedMs * (1 + 2 * random()),
		};
		return processOf(model, clock, { timing, random });
	});
	const claims = [];
	for (let d = 0; d < deliveries; d++) {
		const copies = 1 + Math.floor(random() * processes);
		const first = Math.floor(random() * processes);
		for (let c = 0; c < copies; c++)
			claims.push(
				clock
					.wait(random() * spread)
					.then(() =>
						views[(first + c) % processes].claim(`d${d}`).then((outcome) => [d, outcome]),
					),
			);
	}
	const outcomes = Array.from({ length: deliveries }, () => []);
	for (const [d, outcome] of await clock.run(Promise.all(claims))) outcomes[d].push(outcome);
	return outcomes;
}

describe('busy workers (read and write seconds apart): no delivery is lost, none runs twice', () => {
	for (const seed of [58, 110]) {
		test(`3 workers, gaps up to 2 s, writes 5-15 ms, 10 deliveries over 3 s, seed ${seed}: each delivery runs exactly once`, async () => {
			const outcomes = await busySchedule(seed, {
				processes: 3,
				deliveries: 10,
				spread: 3000,
				gapMax: 2000,
				lockedMs: 5,
			});
			const wrong = outcomes
				.map((o, d) => [d, o])
				.filter(([, o]) => o.filter((x) => x !== 'duplicate').length !== 1);
			expect(wrong.map(([d, o]) => `d${d}: ${o}`)).toEqual([]);
		});
	}
});
