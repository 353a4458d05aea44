// Virtual time and a model of n8n's deduplication store for the claim tests (claims.ts): several
// simulated n8n processes share one store in one JS runtime, each with its own claim scope.
import { dist } from '../harness/n8n-core-harness.mjs';

const { claimStoreOf, lockValues } = dist('nodes/VirtualMailboxTrigger/claims.js');

/**
 * Virtual time: wait() schedules a timer; run() fires timers in time order, each once everything
 * that could run has run, until the awaited promise settles. Seconds-long waits cost nothing, and a
 * schedule depends only on its seed. `claimClock(random)` is the ClaimClock claims.ts takes.
 */
export function virtualClock() {
	let now = 0;
	let seq = 0;
	const timers = [];
	const clock = {
		get now() {
			return now;
		},
		wait: (ms) => new Promise((resolve) => timers.push({ at: now + Math.max(0, ms), seq: seq++, resolve })),
		claimClock: (random = Math.random) => ({ now: () => now, wait: clock.wait, random }),
		/** Runs until `promise` settles; throws if no timer is left, or past `until` ms. */
		async run(promise, { until = Infinity } = {}) {
			let done = false;
			const watched = promise.finally(() => (done = true));
			watched.catch(() => undefined);
			for (;;) {
				await new Promise((resolve) => setImmediate(resolve));
				if (done) return await watched;
				if (!timers.length) throw new Error(`stuck at ${now} ms: no timer left`);
				timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
				if (timers[0].at > until) throw new Error(`still waiting at ${until} ms`);
				const timer = timers.shift();
				now = timer.at;
				timer.resolve();
			}
		},
	};
	return clock;
}

/** The context of the workflow-scope row and of the trigger node's row. */
export const WORKFLOW = 'workflow';
export const NODE = 'node';

/**
 * n8n's processed_data table in "entries" mode (DeduplicationHelper), one row per context, in
 * virtual time. checkProcessedAndRecord reads the row (findOne), then after the caller's `gap`
 * (outside any lock: a busy event loop, a wait for a pool connection) writes behind the row's lock
 * (Postgres: writes to one row, and inserts of one key, serialise), taking `locked` ms inside it:
 * absent at the read -> INSERT, which fails if the row was inserted meanwhile; present -> UPDATE
 * with the list read plus the new values (a blind overwrite; nothing if the row was deleted
 * meanwhile). Reads (count, the findOne) wait for nothing. A row saved in another mode makes
 * checkProcessedAndRecord throw n8n's "incompatible setting" error. `rows` can be set directly
 * (another node's data, a lock left by a stopped process).
 */
export function storeModel(clock) {
	const rows = new Map(); // context -> { mode, list }
	const rowLocks = new Map();
	const underRowLock = async (context, work) => {
		const previous = rowLocks.get(context) ?? Promise.resolve();
		let release;
		const mine = new Promise((resolve) => (release = resolve));
		rowLocks.set(context, mine);
		await previous;
		try {
			return await work();
		} finally {
			release();
		}
	};
	const model = {
		rows,
		/** Every write that reached a row, in order: [context, 'insert' | 'update' | 'delete' | 'remove', values]. */
		writes: [],
		async checkProcessedAndRecord(context, values, { gap = 0, locked = 1, maxEntries = 10_000 } = {}) {
			const read = rows.get(context);
			if (read && read.mode !== 'entries') throw new Error('Deduplication data was originally saved with an incompatible setting of the Keep Items Where parameter');
			const list = read ? [...read.list] : [];
			if (gap) await clock.wait(gap);
			return await underRowLock(context, async () => {
				await clock.wait(locked);
				const processed = values.filter((v) => list.includes(v));
				for (const v of values) if (!list.includes(v)) list.push(v);
				list.splice(0, list.length - maxEntries);
				if (!read) {
					if (rows.has(context)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
					rows.set(context, { mode: 'entries', list });
					model.writes.push([context, 'insert', values]);
				} else if (rows.has(context)) {
					rows.set(context, { mode: 'entries', list });
					model.writes.push([context, 'update', values]);
				}
				return { new: values.filter((v) => !processed.includes(v)), processed };
			});
		},
		async getProcessedDataCount(context, { readMs = 1 } = {}) {
			await clock.wait(readMs);
			return rows.get(context)?.list.length ?? 0;
		},
		async clearAllProcessedItems(context, { locked = 1 } = {}) {
			await underRowLock(context, async () => {
				await clock.wait(locked);
				rows.delete(context);
				model.writes.push([context, 'delete', []]);
			});
		},
		async removeProcessed(context, values, { gap = 0, locked = 1 } = {}) {
			const read = rows.get(context);
			if (!read) return;
			const list = read.list.filter((v) => !values.includes(v));
			if (gap) await clock.wait(gap);
			await underRowLock(context, async () => {
				await clock.wait(locked);
				if (rows.has(context)) {
					rows.set(context, { ...rows.get(context), list });
					model.writes.push([context, 'remove', values]);
				}
			});
		},
	};
	return model;
}

/**
 * One n8n process's ClaimStore over the model, as the node builds it from n8n's helpers
 * (VirtualMailboxTrigger.node.ts execute()). Per write: `gap()` and `locked()` ms (see storeModel);
 * `intercept(op, values)` may return a promise to answer instead (a write that hangs or fails),
 * or undefined to go to the store.
 */
export function processStore(model, { gap = () => 0, locked = () => 1, intercept = () => undefined } = {}) {
	const timing = () => ({ gap: gap(), locked: locked() });
	const contextOf = (scope) => (scope === 'node' ? NODE : WORKFLOW);
	const built = claimStoreOf({
		checkProcessedAndRecord: async (items, scope) => await model.checkProcessedAndRecord(contextOf(scope), items, timing()),
		getProcessedDataCount: async (scope) => await model.getProcessedDataCount(contextOf(scope)),
		clearAllProcessedItems: async (scope) => await model.clearAllProcessedItems(contextOf(scope), timing()),
		removeProcessed: async (items, scope) => await model.removeProcessed(contextOf(scope), items, timing()),
	});
	const through = (op, values, call) => intercept(op, values) ?? call();
	return {
		recordKeys: (keys) => through('recordKeys', keys, () => built.recordKeys(keys)),
		recordLock: () => through('recordLock', lockValues(), () => built.recordLock()),
		countLock: () => through('countLock', [], () => built.countLock()),
		deleteLock: () => through('deleteLock', [], () => built.deleteLock()),
		removeLockValues: () => through('removeLockValues', lockValues(), () => built.removeLockValues()),
	};
}

/** mulberry32: schedules depend only on their seed. */
export { rng as rngOf } from '../simulator/data.mjs';

let scopes = 0;
/** A claim scope no other test in this JS runtime uses (claimQueues keeps per-scope state): one simulated process's trigger node. */
export const freshScope = (name = 'p') => `${name}-${++scopes}/wf/node`;
