import { claimQueues } from '../shared/state/claimQueues';

/**
 * Each delivery runs once across n8n processes: before anything downstream runs, its execution
 * claims its key (deliveryKey.ts) in n8n's deduplication store. The store has no lock, so the
 * claim builds one on its one atomic step, a row's first insert, and records the waiting keys
 * under it. No delivery is lost: a key is found only where an execution recorded it, and that
 * execution runs. Design and limits: docs/webhook-trigger.md, "How the claim decides".
 */
export const claimPolicy = {
	/** The lock's values are this with #1, #2... (the store keeps their md5s). */
	lockValue: 'virtual-mailbox-trigger/claim-lock',
	/** Several values, not one: a count (a read) tells the lock from another node's list. */
	lockSize: 7,
	/** Between looks at a held lock: twice a typical write, with jitter, within these bounds. */
	minPollMs: 5,
	maxPollMs: 500,
	/** A lock held this long unbroken was left by a stopped process (see WriteTimes.leaseMs). */
	leaseMs: 120_000,
	/** A record of keys unanswered this long answers 'unsettled': its claims run. */
	writeDeadlineMs: 60_000,
	/** A claim still without the lock after this (or twice the lease) runs ('unsettled'). */
	maxClaimMs: 180_000,
	maxEntries: 10_000,
};

export const lockValues = (): string[] =>
	Array.from({ length: claimPolicy.lockSize }, (_, i) => `${claimPolicy.lockValue}#${i + 1}`);

/**
 * new: the delivery's first execution, it runs; duplicate: another execution recorded it first;
 * unsettled: the store failed or did not answer, so it runs rather than risk losing it;
 * unguarded: the workflow's row is another node's, so the key was recorded without the lock.
 */
export type ClaimOutcome = 'new' | 'duplicate' | 'unsettled' | 'unguarded';

/** What the claim needs of n8n's deduplication store. */
export interface ClaimStore {
	/** Records the keys in the trigger node's row: the ones that were there before. */
	recordKeys(keys: string[]): Promise<Set<string>>;
	/** Records the lock's values: whether any was there. Throws when another insert won the race. */
	recordLock(): Promise<boolean>;
	/** How many values the workflow's row holds, 0 with no row (reads only). */
	countLock(): Promise<number>;
	/** Deletes the workflow's row. */
	deleteLock(): Promise<void>;
	/** Takes the lock's values out of a workflow row that is not the lock (another node's). */
	removeLockValues(): Promise<void>;
}

/** The n8n helpers the claim uses (IExecuteFunctions['helpers'], mode "entries"). */
export interface DeduplicationHelpers {
	checkProcessedAndRecord(
		items: string[],
		scope: 'node' | 'workflow',
		options: { mode: 'entries'; maxEntries?: number },
	): Promise<{ processed: unknown[] }>;
	getProcessedDataCount(scope: 'workflow', options: { mode: 'entries' }): Promise<number>;
	clearAllProcessedItems(scope: 'workflow', options: { mode: 'entries' }): Promise<void>;
	removeProcessed(items: string[], scope: 'workflow', options: { mode: 'entries' }): Promise<void>;
}

/** The claim's store over n8n's helpers: the keys in the node's row, the lock in the workflow's. */
export function claimStoreOf(helpers: DeduplicationHelpers): ClaimStore {
	const entries = { mode: 'entries' as const, maxEntries: claimPolicy.maxEntries };
	return {
		recordKeys: async (keys) =>
			new Set((await helpers.checkProcessedAndRecord(keys, 'node', entries)).processed.map(String)),
		recordLock: async () =>
			(await helpers.checkProcessedAndRecord(lockValues(), 'workflow', entries)).processed.length >
			0,
		countLock: async () => await helpers.getProcessedDataCount('workflow', entries),
		deleteLock: async () => await helpers.clearAllProcessedItems('workflow', entries),
		removeLockValues: async () => await helpers.removeProcessed(lockValues(), 'workflow', entries),
	};
}

/** Time as the claim sees it: real in the node, virtual in the model tests. */
export interface ClaimClock {
	now(): number;
	wait(ms: number): Promise<void>;
	random(): number;
}

/** Logged when the workflow's row turns out another node's (again only after seeing the lock). */
export const FOREIGN_ROW_WARNING =
	"the workflow's deduplication store (scope Workflow) holds another node's " +
	'data, probably a Remove Duplicates node with Scope set to Workflow, so the ' +
	'claim records without its lock and copies of a delivery handled by ' +
	"different n8n processes at the same moment may each run. Set that node's Scope " +
	'to Node and run its Clear Deduplication History once with Scope Workflow';

export class StoreDeadlineError extends Error {}

/** n8n's error when a row was saved in another mode (a Remove Duplicates node's "latest" modes). */
const isModeMismatch = (error: unknown) =>
	/incompatible setting/i.test((error as Error)?.message ?? '');

async function withDeadline<T>(
	call: Promise<T>,
	clock: ClaimClock,
	ms = claimPolicy.writeDeadlineMs,
): Promise<T> {
	return await Promise.race([
		call,
		clock.wait(Math.max(0, ms)).then(() => {
			throw new StoreDeadlineError(
				`n8n's deduplication store did not answer within ${Math.round(ms / 1000)} s`,
			);
		}),
	]);
}

/**
 * `store` with its lock writes under the deadline. A record of keys has its own (takeTurn); a
 * count has none: the turn's limit ends it, and a timer for each of many counts would pile up.
 */
function withDeadlines(store: ClaimStore, clock: ClaimClock): ClaimStore {
	return {
		...store,
		recordLock: async () => await withDeadline(store.recordLock(), clock),
		deleteLock: async () => await withDeadline(store.deleteLock(), clock),
		removeLockValues: async () => await withDeadline(store.removeLockValues(), clock),
	};
}

function lowQuarterOf(samples: number[]): number {
	if (!samples.length) return 0;
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.floor((sorted.length - 1) / 4)];
}

/** One process's recent write times to the store, for its polls and its lease. */
export class WriteTimes {
	private readonly recent: number[] = [];
	add(ms: number): void {
		this.recent.push(ms);
		if (this.recent.length > 16) this.recent.shift();
	}
	/** Between looks at a lock held `heldMs`: a long-held lock is looked at less often. */
	pollMs(random: number, heldMs = 0): number {
		const base = Math.min(
			claimPolicy.maxPollMs,
			Math.max(claimPolicy.minPollMs, 2 * lowQuarterOf(this.recent), heldMs / 20),
		);
		return Math.round(base * (0.5 + random));
	}
	leaseMs(): number {
		return Math.max(claimPolicy.leaseMs, 20 * Math.max(0, ...this.recent));
	}
	/** Past any waiter's lease, so that a stopped holder's lock is taken over first. */
	claimLimitMs(): number {
		return Math.max(claimPolicy.maxClaimMs, 2 * this.leaseMs());
	}
}

export type LockResult = 'held' | 'foreign' | 'gave up';

/** One record of the lock: 'there' it was there already, 'lost' another process's insert won. */
type LockAttempt = 'held' | 'foreign' | 'there' | 'lost';

async function recordLockOnce(
	store: ClaimStore,
	clock: ClaimClock,
	timed: <T>(write: Promise<T>) => Promise<T>,
): Promise<LockAttempt> {
	let wasThere: boolean;
	try {
		wasThere = await timed(store.recordLock());
	} catch (error) {
		return isModeMismatch(error) ? 'foreign' : 'lost';
	}
	if (wasThere) return 'there';
	// This write inserted the row, unless the row was another node's list (its values and the lock's
	// now). If the count cannot be read, the insert is taken to be this process's: the lock must not
	// be left behind, and another node's row appearing between a count of 0 and this write is rarer.
	const count = await withDeadline(store.countLock(), clock).catch(() => claimPolicy.lockSize);
	if (count === 0) return 'lost'; // gone already: taken over by another process after the lease
	if (count <= claimPolicy.lockSize) return 'held';
	await store.removeLockValues().catch(() => undefined);
	return 'foreign';
}

/**
 * Pure (given a store and clock): take the lock or give up at `giveUpAt`. `lockSizedRowIsForeign`:
 * until when a row of lockSize values is taken for another node's, once one was (a lease, or
 * until the row is seen gone: a cleared row of lockSize values is a held lock again).
 * `taken.at`: when the insert was sent (the lease of other processes runs from no earlier).
 */
export async function acquireLock(
	store: ClaimStore,
	clock: ClaimClock,
	times: WriteTimes,
	lockSizedRowIsForeign = { until: 0 },
	giveUpAt = clock.now() + times.claimLimitMs(),
	taken = { at: 0 },
): Promise<LockResult> {
	const started = clock.now();
	const timed = async <T>(write: Promise<T>) => {
		const from = clock.now();
		const result = await write;
		times.add(clock.now() - from);
		return result;
	};
	// This waiter's lease, drawn once: waiters that watched one stopped holder together take it over
	// at different moments, and a later one sees the lock free before its own lease ends.
	const leaseMs = times.leaseMs() * (1 + clock.random() / 2);
	let heldSince: number | undefined;
	let lastLook = started;
	for (;;) {
		if (clock.now() >= giveUpAt) return 'gave up';
		// A count that fails is looked at again (a dropped connection), not taken for an answer.
		const count = await store.countLock().catch(() => undefined);
		const now = clock.now();
		if (count === undefined) {
			// looked at again below
		} else if (count === 0) {
			heldSince = undefined;
			lockSizedRowIsForeign.until = 0;
			taken.at = clock.now();
			const attempt = await recordLockOnce(store, clock, timed);
			if (attempt === 'held' || attempt === 'foreign') return attempt;
		} else if (count !== claimPolicy.lockSize || now < lockSizedRowIsForeign.until) {
			return 'foreign'; // another node's list (the lock holds exactly lockSize values)
		} else if (heldSince === undefined || now - lastLook > claimPolicy.leaseMs / 4) {
			heldSince = now; // a look after a long gap (this process was busy) starts the count again
		} else if (now - heldSince > leaseMs) {
			// Held without a break for longer than any hold takes: its process stopped. Only a row that
			// holds the lock is deleted; a row another process has just inserted is its fresh lock.
			taken.at = clock.now();
			const attempt = await recordLockOnce(store, clock, timed);
			if (attempt === 'foreign') lockSizedRowIsForeign.until = clock.now() + times.leaseMs();
			if (attempt === 'held' || attempt === 'foreign') return attempt;
			if (attempt === 'there') await store.deleteLock().catch(() => undefined);
			heldSince = undefined;
			continue;
		}
		lastLook = now;
		await clock.wait(times.pollMs(clock.random(), heldSince === undefined ? 0 : now - heldSince));
	}
}

interface WaitingClaim {
	key: string;
	/** A turn gives up on the lock a claim limit after its oldest claim was asked. */
	askedAt: number;
	store: ClaimStore;
	resolve: (outcome: ClaimOutcome) => void;
	reject: (error: unknown) => void;
}

interface ClaimQueue {
	waiting: WaitingClaim[];
	busy: boolean;
	times: WriteTimes;
	/** The workflow's row was another node's at the last turn (and this process warned). */
	foreign: boolean;
	lockSizedRowIsForeign: { until: number };
}

/**
 * Gives a held lock back: deletes the row only while it is exactly the lock; a row with another
 * count has had another node's values recorded into it, so only the lock's are taken out. A delete
 * that fails is not tried again (it may land after another process took the lock); a row whose
 * count stays unknown is left for a waiter to take over after the lease. Nothing is done at or
 * after `until`, when another process may have taken the lock over.
 */
async function giveBack(store: ClaimStore, clock: ClaimClock, until: number): Promise<void> {
	const countOnce = async () =>
		await withDeadline(
			store.countLock(),
			clock,
			Math.min(claimPolicy.writeDeadlineMs, until - clock.now()),
		).catch(() => undefined);
	// A read, unlike the delete, is safe to repeat.
	const count = (await countOnce()) ?? (clock.now() < until ? await countOnce() : undefined);
	// Past `until` another process may have taken the lock over: what is there now may be its lock.
	if (clock.now() >= until) return;
	if (count === claimPolicy.lockSize) await store.deleteLock().catch(() => undefined);
	else if (count !== undefined && count !== 0)
		await store.removeLockValues().catch(() => undefined);
}

/**
 * One turn: take the lock, record the waiting claims' keys, give the lock back, answer them.
 * Without the lock by the oldest claim's limit, the claims past their own limit are recorded
 * anyway and run ('unsettled'); the others wait for the next turn. A failed record is retried
 * for each key alone with its first asker's store, so that only a claim whose own record fails
 * fails. A record past its deadline answers 'unsettled'; the next turn does not wait for it.
 */
async function takeTurn(
	queue: ClaimQueue,
	waiting: WaitingClaim[],
	clock: ClaimClock,
	warn: (message: string) => void,
): Promise<void> {
	const store = withDeadlines(waiting[0].store, clock);
	const limitMs = queue.times.claimLimitMs();
	// A claim that waited through an earlier turn has less of its limit left.
	const giveUpAt = Math.min(...waiting.map((claim) => claim.askedAt)) + limitMs;
	const taken = { at: 0 };
	const acquiring = acquireLock(
		store,
		clock,
		queue.times,
		queue.lockSizedRowIsForeign,
		giveUpAt,
		taken,
	);
	const acquired = await Promise.race([
		acquiring,
		clock.wait(Math.max(0, giveUpAt - clock.now())).then(() => 'gave up' as const),
	]).catch(() => 'gave up' as const);
	// After this another process may take the lock over (no waiter's lease is shorter than
	// leaseMs, counted from no earlier than the insert was sent): the turn's writes end before it.
	const lockUntil = taken.at + 0.9 * claimPolicy.leaseMs;
	// A lock whose taking answered only after that may be another process's by now: nothing is
	// recorded or given back under it (a record could erase the other holder's), and its claims run.
	if (acquired === 'held' && clock.now() >= lockUntil) {
		for (const claim of waiting) claim.resolve('unsettled');
		return;
	}
	const lock = acquired;
	// A lock taken after the turn gave up on it is given back at once.
	if (lock === 'gave up')
		void acquiring
			.then(
				async (late) =>
					late === 'held' && (await giveBack(store, clock, taken.at + 0.9 * claimPolicy.leaseMs)),
			)
			.catch(() => undefined);
	const batch =
		lock === 'gave up'
			? waiting.filter((claim) => claim.askedAt + limitMs <= clock.now())
			: waiting;
	if (lock === 'gave up')
		queue.waiting.unshift(...waiting.filter((claim) => !batch.includes(claim)));
	if (lock === 'foreign' && !queue.foreign) warn(FOREIGN_ROW_WARNING);
	if (lock !== 'gave up') queue.foreign = lock === 'foreign';
	// Without the lock the keys are still recorded, so that later copies and replays find them.
	const fresh = lock === 'held' ? 'new' : lock === 'foreign' ? 'unguarded' : 'unsettled';
	const pending: Array<Promise<unknown>> = [];
	let overdue = false;
	// Each key's askers in this turn, first asker first: the others are copies of it.
	const askers = new Map<string, WaitingClaim[]>();
	for (const claim of batch) askers.set(claim.key, [...(askers.get(claim.key) ?? []), claim]);
	const answerKey = (key: string, outcome: ClaimOutcome) => {
		const [first, ...copies] = askers.get(key) ?? [];
		first?.resolve(outcome);
		for (const copy of copies) copy.resolve('duplicate');
	};
	/** `retry`: a failed record of `keys` may have landed: a key found then runs, not a copy. */
	const record = async (keys: string[], from: ClaimStore, retry: boolean, deadlineMs: number) => {
		const write = from.recordKeys(keys);
		pending.push(write.catch(() => undefined));
		const started = clock.now();
		const present = await withDeadline(write, clock, deadlineMs).catch((error: unknown) => {
			if (error instanceof StoreDeadlineError) overdue = true;
			throw error;
		});
		queue.times.add(clock.now() - started);
		for (const key of keys)
			answerKey(key, !present.has(key) ? fresh : retry ? 'unsettled' : 'duplicate');
	};
	const keys = [...askers.keys()];
	try {
		await record(keys, store, false, claimPolicy.writeDeadlineMs);
	} catch {
		for (const key of keys) {
			const [first] = askers.get(key) ?? [];
			// After a record past its deadline, or once a retry could not end before the lock may be
			// taken over: the rest run rather than hold the lock longer.
			const leftMs = Math.min(claimPolicy.writeDeadlineMs, lockUntil - clock.now());
			if (!first || overdue || leftMs < claimPolicy.writeDeadlineMs / 2) {
				answerKey(key, 'unsettled');
				continue;
			}
			await record([key], first.store, true, leftMs).catch((alone: unknown) => {
				if (alone instanceof StoreDeadlineError) return answerKey(key, 'unsettled');
				for (const claim of askers.get(key) ?? []) claim.reject(alone);
			});
		}
	} finally {
		if (lock === 'held') {
			const settled = overdue
				? Promise.race([
						Promise.all(pending).then(() => true),
						clock.wait(Math.max(0, lockUntil - clock.now())).then(() => false),
					])
				: Promise.resolve(true);
			const given = settled.then(
				async (inTime) => inTime && (await giveBack(store, clock, lockUntil)),
			);
			if (!overdue) await given;
		}
	}
}

/**
 * Pure (given a store and clock): claim `key` for one execution. A process's claims of one
 * trigger node (`scope`) wait together and share a turn with the lock, one turn at a time.
 */
export async function claimDelivery(
	scope: string,
	key: string,
	store: ClaimStore,
	clock: ClaimClock,
	warn: (message: string) => void,
): Promise<ClaimOutcome> {
	return await new Promise<ClaimOutcome>((resolve, reject) => {
		const queue = claimQueues.of<ClaimQueue>(scope, () => ({
			waiting: [],
			busy: false,
			times: new WriteTimes(),
			foreign: false,
			lockSizedRowIsForeign: { until: 0 },
		}));
		queue.waiting.push({ key, askedAt: clock.now(), store, resolve, reject });
		if (queue.busy) return;
		queue.busy = true;
		void (async () => {
			while (queue.waiting.length) await takeTurn(queue, queue.waiting.splice(0), clock, warn);
			queue.busy = false;
		})();
	});
}
