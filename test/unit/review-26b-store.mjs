// Review of #26 (second round): a small, faithful model of n8n's processed_data store as
// DeduplicationHelper (n8n/dist/deduplication/deduplication-helper.js, identical in 2.41.1 and
// 1.123.81) drives it, in virtual time, with hooks to hold or fail one call. Not a test file.
import { createHash } from 'node:crypto';
import { dist } from '../harness/n8n-core-harness.mjs';
import { virtualClock } from '../support/virtual-clock.mjs';

// The ClaimStore execute() builds from the helpers (VirtualMailboxTrigger.node.ts) is claims.ts's claimStoreOf.
export const { claimDelivery, claimPolicy, claimStoreOf, lockValues, acquireLock, WriteTimes } = dist('nodes/VirtualMailboxTrigger/claims.js');

export const hashOf = (value) => createHash('md5').update(String(value)).digest('base64');
export const MODE_MISMATCH = 'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter. Try ’Clean Database’ operation to reset.';
export const WORKFLOW = '';
export const NODE = 'n:trigger';
let scopes = 0;
/** A claimQueues scope of its own for each simulated process of each test. */
export const freshScope = (name = 'p') => `review-26b/${++scopes}/${name}/wf/trigger`;

/**
 * The table: rows by context, { value, id }. Reads see committed rows; an INSERT fails (unique
 * violation) when the row is there at its write; an UPDATE writes only if the row its statement
 * targets is still the same row (an update of a deleted row changes nothing); a DELETE is atomic.
 * Every write takes `writeMs` (the slowed store) before it lands.
 */
export function storeModel({ writeMs = 5 } = {}) {
	const clock = virtualClock({ limitMs: 3600_000 });
	const rows = new Map();
	let ids = 0;
	const table = {
		rows,
		put(context, value) {
			rows.set(context, { value: structuredClone(value), id: ++ids });
		},
		data(context) {
			return rows.get(context)?.value.data;
		},
		async select(context) {
			await clock.wait(1);
			const row = rows.get(context);
			return row && { value: structuredClone(row.value), id: row.id };
		},
		async insert(context, value) {
			await clock.wait(writeMs);
			if (rows.has(context)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
			rows.set(context, { value: structuredClone(value), id: ++ids });
		},
		async update(context, found) {
			await clock.wait(writeMs);
			const row = rows.get(context);
			if (row && row.id === found.id) row.value = structuredClone(found.value);
		},
		async delete(context) {
			await clock.wait(writeMs);
			rows.delete(context);
		},
	};
	return { clock, table };
}

/**
 * One process's n8n helpers (mode as asked), as DeduplicationHelper computes them: findOne, then
 * insert or update from what was read. `hooks[op]` (record-node, record-workflow, count, delete,
 * remove), when set, is awaited with the call's number before the call runs; `after[op]` after the
 * call's write, before it answers (it may throw: an error reported after the write committed).
 * `gapMs` is the time between a call's read and its write (a busy event loop).
 */
export function helpersOf(table, clock, { hooks = {}, after = {}, gapMs = 0 } = {}) {
	const calls = {};
	const contextOf = (scope) => (scope === 'node' ? NODE : WORKFLOW);
	const run = async (op, body) => {
		calls[op] = (calls[op] ?? 0) + 1;
		const n = calls[op];
		if (hooks[op]) await hooks[op](n);
		const result = await body();
		if (after[op]) await after[op](n);
		return result;
	};
	const gap = async () => gapMs && (await clock.wait(gapMs));
	return {
		calls,
		checkProcessedAndRecord: (items, scope, options) =>
			run(scope === 'node' ? 'record-node' : 'record-workflow', async () => {
				const context = contextOf(scope);
				const found = await table.select(context);
				if (found && found.value.mode !== options.mode) throw new Error(MODE_MISMATCH);
				await gap();
				const latest = ['latestIncrementalKey', 'latestDate'].includes(options.mode);
				if (!found) {
					const data = latest ? [...items].sort((a, b) => Number(a) - Number(b)).pop() : items.map(hashOf);
					await table.insert(context, { mode: options.mode, data });
					return { new: items, processed: [] };
				}
				if (latest) {
					const result = { new: [], processed: [] };
					for (const item of items) (Number(item) > Number(found.value.data) ? result.new : result.processed).push(item);
					found.value.data = String(Math.max(Number(found.value.data), ...items.map(Number)));
					await table.update(context, found);
					return result;
				}
				const result = { new: [], processed: [] };
				if (!Array.isArray(found.value.data)) return result;
				const seen = new Set(found.value.data);
				items.forEach((item) => {
					const hash = hashOf(item);
					if (seen.has(hash)) result.processed.push(item);
					else {
						result.new.push(item);
						found.value.data.push(hash);
					}
				});
				if (options.maxEntries) found.value.data.splice(0, found.value.data.length - options.maxEntries);
				await table.update(context, found);
				return result;
			}),
		getProcessedDataCount: (scope, options) =>
			run('count', async () => {
				const found = await table.select(contextOf(scope));
				return options.mode === 'entries' && found && Array.isArray(found.value.data) ? found.value.data.length : 0;
			}),
		clearAllProcessedItems: (scope) => run('delete', async () => await table.delete(contextOf(scope))),
		removeProcessed: (items, scope) =>
			run('remove', async () => {
				const context = contextOf(scope);
				const found = await table.select(context);
				if (!found || !Array.isArray(found.value.data)) return;
				await gap();
				for (const hash of items.map(hashOf)) {
					const index = found.value.data.indexOf(hash);
					if (index !== -1) found.value.data.splice(index, 1);
				}
				await table.update(context, found);
			}),
	};
}

/** Starts a claim at virtual time `at`; the returned record gets outcome and answeredAt. */
export function startClaim(clock, { at = 0, scope, key, store, warnings = [] }) {
	const claim = { key, outcome: undefined, answeredAt: undefined };
	claim.done = clock.wait(at).then(async () => {
		try {
			claim.outcome = await claimDelivery(scope, key, store, { now: clock.now, wait: clock.wait, random: () => 0.5 }, (m) => warnings.push(m));
		} catch (error) {
			claim.outcome = `error: ${error.message}`;
		}
		claim.answeredAt = clock.now();
	});
	return claim;
}

/** Runs virtual time until every claim answered or `limitMs`; returns a description of what is left. */
export async function settle(clock, claims, limitMs) {
	try {
		await clock.run(() => claims.every((claim) => claim.outcome !== undefined) || clock.now() > limitMs);
	} catch (error) {
		return `stuck: ${error.message}`;
	}
	return claims.every((claim) => claim.outcome !== undefined) ? 'answered' : `unanswered at ${clock.now()} ms`;
}

export const never = new Promise(() => undefined);

/** Runs virtual time until nothing is left to run (the turn's lock delete after its answers, the deadline timers). */
export async function drain(clock) {
	await clock.run(() => false).catch(() => undefined);
}
