// Review of #26: schedules the claim does not survive, in virtual time, against a store that reads
// and writes the node's row the way n8n's DeduplicationHelper does (findOne, then update of the
// whole list, no lock between them, the list capped by maxEntries with the oldest evicted).
import { describe, expect, test } from 'vitest';
import { dist } from '../harness/n8n-core-harness.mjs';

const { batchedStore, claimDelivery, claimPolicy } = dist('nodes/VirtualMailboxTrigger/claims.js');

function virtualClock() {
	let now = 0;
	let seq = 0;
	const timers = [];
	return {
		get now() {
			return now;
		},
		sleep: (ms) => new Promise((resolve) => timers.push({ at: now + ms, seq: seq++, resolve })),
		async run(promise, { until = Infinity } = {}) {
			let done = false;
			const watched = promise.finally(() => (done = true));
			for (;;) {
				await new Promise((resolve) => setImmediate(resolve));
				if (done) return await watched;
				if (!timers.length) throw new Error(`the claims are stuck at ${now} ms: no timer left`);
				timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
				if (timers[0].at > until) throw new Error(`the claims are still waiting at ${until} ms`);
				const timer = timers.shift();
				now = timer.at;
				timer.resolve();
			}
		},
	};
}

/**
 * n8n's checkProcessedAndRecord as two statements: findOne (the read) and update (the write, behind
 * the row's lock, `lockedMs` inside it). `gapMs` is the time between the read returning and the
 * update reaching the row: the caller's event loop busy with another execution's code on the same
 * worker, or a wait for one of the pool's connections (n8n's default Postgres pool is 2). It does
 * not hold the lock, so other processes' writes go on meanwhile and are not slowed.
 */
function n8nLikeStore(clock) {
	let list = [];
	let rowLock = Promise.resolve();
	return {
		get list() {
			return list;
		},
		async record(values, { gapMs = 0, lockedMs = 5 } = {}) {
			const started = clock.now;
			const read = [...list];
			if (gapMs) await clock.sleep(gapMs);
			const previous = rowLock;
			let release;
			rowLock = new Promise((resolve) => (release = resolve));
			await previous;
			await clock.sleep(lockedMs);
			const present = new Set(values.filter((v) => read.includes(v)));
			list = [...read, ...values.filter((v) => !read.includes(v))];
			release();
			return { present, writeMs: clock.now - started };
		},
	};
}

/** One process: its claims share writes (claims.ts batchedStore), each write with this process's gap. */
function processOf(store, clock, timing) {
	const batch = batchedStore(clock.sleep);
	return { record: (values) => batch.record(values, (all) => store.record(all, timing)) };
}

describe('review #26: a busy worker below the stated ceiling', () => {
	test('two copies at the same moment, one on a worker whose update trails its read by 1 s (far below the 10 s ceiling), the other on an idle worker: exactly one runs', async () => {
		const clock = virtualClock();
		const store = n8nLikeStore(clock);
		const busy = processOf(store, clock, { gapMs: 1000 });
		const idle = processOf(store, clock, { gapMs: 0 });
		const outcomes = await clock.run(Promise.all([claimDelivery(busy, 'k', 'busy', clock.sleep), claimDelivery(idle, 'k', 'idle', clock.sleep)]));
		// Both answer 'new': the idle worker measured 5 ms writes, waited the 0.3 s floor and saw its
		// claim; the busy worker's write (read before the idle one's) then overwrote it.
		expect(outcomes.filter((o) => o !== 'duplicate'), `outcomes ${outcomes}`).toHaveLength(1);
	});

	test('the same with a gap of 400 ms (the issue: "a busy worker reaches such latencies"): exactly one runs', async () => {
		const clock = virtualClock();
		const store = n8nLikeStore(clock);
		const busy = processOf(store, clock, { gapMs: 400 });
		const idle = processOf(store, clock, { gapMs: 0 });
		const outcomes = await clock.run(Promise.all([claimDelivery(busy, 'k', 'busy', clock.sleep), claimDelivery(idle, 'k', 'idle', clock.sleep)]));
		expect(outcomes.filter((o) => o !== 'duplicate'), `outcomes ${outcomes}`).toHaveLength(1);
	});
});

describe('review #26: process-local queue state on a write that never answers or fails', () => {
	test('a write to the store that never answers (a hung connection): later claims of the same node in that process still finish (answer or fail) within the ceiling', async () => {
		const clock = virtualClock();
		const batch = batchedStore(clock.sleep);
		let calls = 0;
		const write = async (values) => {
			calls++;
			if (calls === 1) return await new Promise(() => {}); // hangs
			return { present: new Set(), writeMs: 5 };
		};
		const store = { record: (values) => batch.record(values, write) };
		void claimDelivery(store, 'stuck', '1', clock.sleep).catch(() => {});
		// A delivery a minute later, a distinct one: it only waits for the hung write.
		const later = clock.sleep(60_000).then(() => claimDelivery(store, 'later', '2', clock.sleep).then(
			(outcome) => outcome,
			(error) => `failed: ${error.message}`,
		));
		const outcome = await clock.run(later, { until: 60_000 + 10 * claimPolicy.maxSettleMs }).catch((error) => `never: ${error.message}`);
		expect(outcome).not.toMatch(/^never/);
	});

	test('one failing write fails only the claim it was made for: the other executions whose records were batched into it are not failed with it', async () => {
		const clock = virtualClock();
		const batch = batchedStore(clock.sleep);
		let n = 0;
		const failingOnce = async () => {
			n++;
			if (n === 2) throw new Error('unique constraint (the first execution\'s write)');
			return { present: new Set(), writeMs: 5 };
		};
		// The first write is under way; three more executions' records wait and go in the next one.
		const first = batch.record(['a'], failingOnce);
		const waiting = ['b', 'c', 'd'].map((v) => batch.record([v], failingOnce).then(() => 'ok', (e) => `failed: ${e.message}`));
		await clock.run(first);
		const results = await clock.run(Promise.all(waiting));
		// The batch's write was made with the first waiter's write function; its error rejects all three.
		expect(results.filter((r) => r !== 'ok'), JSON.stringify(results)).toHaveLength(0);
	});
});
