// The model of n8n's deduplication store (processed-data.mjs) as the tests of the webhook
// trigger's claim (nodes/VirtualMailboxTrigger/claims.ts) run it: in virtual time, shared by
// several simulated n8n processes in one JS runtime, each with its own claim scope. The node's
// ClaimStore over the helpers is claims.ts's claimStoreOf, as the trigger's execute() builds it.
import { dist } from '../harness/n8n-core-harness.mjs';
import { deduplicationHelpers, hashOf, NODE_ID, processedDataTable } from './processed-data.mjs';
import { virtualClock } from './virtual-clock.mjs';

export { virtualClock };
export {
	deduplicationHelpers,
	hashOf,
	MODE_MISMATCH,
	NODE,
	NODE_ID,
	processedDataTable,
	WORKFLOW,
} from './processed-data.mjs';
/** mulberry32: schedules depend only on their seed. */
export { rng } from '../simulator/data.mjs';

const claims = dist('nodes/VirtualMailboxTrigger/claims.js');
export const { claimDelivery, claimPolicy, claimStoreOf, lockValues } = claims;

export const never = new Promise(() => undefined);

/** A Remove Duplicates node's record options (mode entries, n8n's default history). */
export const ENTRIES = { mode: 'entries', maxEntries: 10_000 };
const RUNS = new Set(['new', 'unsettled', 'unguarded']);
/** How many of these claims ran their delivery. */
export const runs = (claims) => claims.filter((claim) => RUNS.has(claim.outcome)).length;
/** The stored hash of the lock's first value. */
export const lockHash = () => hashOf(lockValues()[0]);

let scopes = 0;
/** A claim scope no other claim in this JS runtime uses (claimQueues keeps per-scope state): one simulated process's trigger node. */
export const freshScope = (name = 'p') => `${name}-${++scopes}/wf/${NODE_ID}`;

/**
 * A store of its own for one test: a virtual clock (limited to an hour unless told) and the table.
 * Options go to processedDataTable.
 */
export function storeModel({ limitMs = 3600_000, ...options } = {}) {
	const clock = virtualClock({ limitMs });
	return { clock, table: processedDataTable({ clock, ...options }) };
}

/**
 * One process's ClaimStore over the model, as execute() builds it (claimStoreOf over the helpers).
 * `intercept(op, values)` may return a promise to answer instead of the store (a write that hangs
 * or fails), or undefined to go to the store; op is the ClaimStore's method.
 */
export function claimStoreWith(helpers, intercept = () => undefined) {
	const built = claimStoreOf(helpers);
	const through = (op, values, call) => intercept(op, values) ?? call();
	return {
		recordKeys: (keys) => through('recordKeys', keys, () => built.recordKeys(keys)),
		recordLock: () => through('recordLock', lockValues(), () => built.recordLock()),
		countLock: () => through('countLock', [], () => built.countLock()),
		deleteLock: () => through('deleteLock', [], () => built.deleteLock()),
		removeLockValues: () =>
			through('removeLockValues', lockValues(), () => built.removeLockValues()),
	};
}

/** Starts a claim at virtual time `at` (random() fixed to `random`); the returned record gets outcome and answeredAt. */
export function startClaim(clock, { at = 0, scope, key, store, warnings = [], random = 0.5 }) {
	const claim = { key, outcome: undefined, answeredAt: undefined };
	claim.done = clock.wait(at).then(async () => {
		try {
			claim.outcome = await claimDelivery(
				scope,
				key,
				store,
				{ now: clock.now, wait: clock.wait, random: () => random },
				(m) => warnings.push(m),
			);
		} catch (error) {
			claim.outcome = `error: ${error.message}`;
		}
		claim.answeredAt = clock.now();
	});
	return claim;
}

/** Runs virtual time until every claim answered or `limitMs`; returns a description of what is left. */
export async function settle(clock, claimsToAnswer, limitMs) {
	try {
		await clock.run(
			() => claimsToAnswer.every((claim) => claim.outcome !== undefined) || clock.now() > limitMs,
		);
	} catch (error) {
		return `stuck: ${error.message}`;
	}
	return claimsToAnswer.every((claim) => claim.outcome !== undefined)
		? 'answered'
		: `unanswered at ${clock.now()} ms`;
}

/** Runs virtual time until nothing is left to run (a turn's lock delete after its answers, the deadline timers). */
export async function drain(clock) {
	await clock.run(() => false).catch(() => undefined);
}

/** The model of n8n's store for one test; writes take 1 ms unless a process says otherwise. */
export const tableOf = (clock, options = {}) =>
	processedDataTable({ clock, writeMs: () => 1, ...options });

/**
 * One simulated n8n process: its own claim scope (claimQueues state) and its own store timing:
 * `gap()` ms between each read and its write, outside the row lock; `locked()` ms per write;
 * `intercept(op, values)` answers a ClaimStore call instead of the store (a write that hangs or fails).
 */
export function processOf(table, clock, { timing = {}, random = Math.random, warnings = [] } = {}) {
	const scope = freshScope();
	const gap = timing.gap && (async () => await clock.wait(timing.gap()));
	const store = claimStoreWith(
		deduplicationHelpers(table, { gap, writeMs: timing.locked }),
		timing.intercept,
	);
	const claimClock = { now: clock.now, wait: clock.wait, random };
	return {
		store,
		claim: (key) =>
			claimDelivery(scope, key, store, claimClock, (message) => warnings.push(message)),
	};
}

/**
 * deduplicationHelpers with hooks by call name, awaited with the call's number before the call
 * (`hooks`) or after its write (`after`), and `gapMs` between each read and its write.
 */
export function helpersOf(table, clock, { hooks = {}, after = {}, gapMs = 0 } = {}) {
	return deduplicationHelpers(table, {
		before: (op, n) => hooks[op]?.(n),
		after: async (op, n) => await after[op]?.(n),
		gap: gapMs ? async () => await clock.wait(gapMs) : undefined,
	});
}

/** A ClaimStore over helpersOf's hooks (claimStoreOf, as execute() builds it). */
export const storeOf = (table, clock, options) => claimStoreOf(helpersOf(table, clock, options));
