// Model test of the webhook trigger's claim (nodes/VirtualMailboxTrigger/claims.ts): the built
// claimDelivery in several simulated n8n processes against the model of n8n's processed_data
// store (test/support/deduplication-store.mjs) in virtual time, seeded schedules, and an oracle (the true history of which
// executions answered what). Properties, checked on every schedule:
//   LOST     a delivery none of whose copies ran ('new', 'unsettled', 'unguarded' run; 'duplicate' does not): never;
//   DOUBLED  a delivery run by two executions: never, unless a lock was force-deleted or a foreign row exists;
//   ERASED   a record of the trigger node's row that drops a key recorded before (same condition);
//   REPLAY   a copy claimed after everything settled that is not 'duplicate';
//   STUCK    a claim of a live process never answered;
//   and per scenario: FOREIGN (the foreign row's values survive, one warning per process),
//   DEADLINE (a write past its deadline answers 'unsettled' and the lock is kept until it lands),
//   errors (store calls that fail before or after their statement, or wait: LOST counts a delivery
//   none of whose copies ran or failed visibly; only a claim whose own record of keys failed may
//   fail; DOUBLED only where a copy saw an error; LOCK LEFT once everything settled; STUCK also for
//   a claim answered past the claim limit).
// A failure prints its seed, the command that replays it and a short trace. Mutants at the end show
// the same checks catch a store without its primary key, a plain check-and-record, a lock taken
// over LOCK and, with store errors, a failed record retried by the store that takes its own landed
// key for a copy's. `VMB_CLAIM_SEED=<n>` runs that one seed (with its trace); `VMB_CLAIM_SEEDS=<n>` runs n.
import { describe, expect, test } from 'vitest';
import {
	claimDelivery,
	claimPolicy,
	claimStoreOf,
	deduplicationHelpers,
	hashOf,
	lockValues,
	NODE,
	NODE_ID,
	processedDataTable,
	rng,
	virtualClock,
	WORKFLOW,
} from '../support/deduplication-store.mjs';
import { dist } from '../harness/n8n-core-harness.mjs';

const { FOREIGN_ROW_WARNING } = dist('nodes/VirtualMailboxTrigger/claims.js');

const SEED = process.env.VMB_CLAIM_SEED ? Number(process.env.VMB_CLAIM_SEED) : undefined;
const replayCommand = (seed, kind) =>
	`VMB_CLAIM_SEED=${seed} npx vitest run --config vitest.config.mjs --project model test/model/claims.test.mjs -t '${kind}:'`;

const FAST = { label: '0–5 ms', ms: (random) => Math.floor(random() * 6) };
const slow = (ms) => ({ label: `${ms} ms`, ms: () => ms });
const WRITE_DELAYS = [FAST, slow(200), slow(400), slow(1000)];
const FOREIGN_LIST = ['order-1', 'order-2', 'order-3'];
let runs = 0; // each schedule's processes get their own claimQueues scopes

/** What a seed stands for; `override` fixes some of it (mutants, measurements). */
function scenarioOf(seed, override = {}) {
	const random = rng(seed * 7919 + 17);
	return {
		kind: 'burst',
		write: WRITE_DELAYS[Math.floor(random() * WRITE_DELAYS.length)],
		processes: 2 + Math.floor(random() * 3),
		busyMaxMs: random() < 0.5 ? 0 : 2000,
		bursts: 8,
		singles: 4,
		spreadMs: 6000,
		...override,
	};
}

/**
 * One schedule: `bursts` deliveries sent as copies to different processes within 10 ms of each
 * other, `singles` unrelated deliveries in between, all within `spreadMs`; then, once everything
 * settled, a replay of each delivery to a random process. Returns the history and the violations.
 */
async function runSchedule(seed, override = {}) {
	const scenario = scenarioOf(seed, override);
	const { kind, write, processes, busyMaxMs } = scenario;
	const random = rng(seed);
	const clock = virtualClock({ limitMs: 24 * 3600_000 });
	const trace = [];
	const note = (line) => trace.push(`${String(clock.now()).padStart(7)} ms  ${line}`);
	const forceDeleted = [];
	const erased = [];
	const slowWrites = [];
	const lockDeletes = [];
	const lockInserts = [];
	const log = (change) => {
		const { by, op, context, failed, before, after } = change;
		const what = context === WORKFLOW ? 'lock row' : 'node row';
		if (failed) return note(`${by} ${op} ${what}: ${failed}`);
		note(`${by} ${op} ${what}${after ? ` (${after.data.length} values)` : ''}`);
		if (context === WORKFLOW && op === 'delete') {
			const breaker = procs.find((proc) => proc.name === by);
			if (!breaker?.breaking)
				lockDeletes.push({ by, at: clock.now() }); // a turn giving its lock back
			else {
				const holder = procs.find((proc) => proc.name === change.insertedBy);
				forceDeleted.push({
					by,
					holder: change.insertedBy,
					live: !holder?.dead && !holder?.stuck,
					at: clock.now(),
				});
			}
		}
		if (context === WORKFLOW && op === 'insert') lockInserts.push({ by, at: clock.now() });
		if (context === NODE && before && after) {
			const kept = new Set(after.data);
			const dropped = before.data.filter((hash) => !kept.has(hash));
			if (dropped.length) erased.push({ by, at: clock.now(), dropped: dropped.length });
		}
	};
	const table = processedDataTable({
		clock,
		random,
		writeMs: () => write.ms(random),
		enforcePrimaryKey: !override.noPrimaryKey,
		log,
	});
	if (kind === 'foreign-list' || scenario.foreignRow)
		table.put(WORKFLOW, { mode: 'entries', data: FOREIGN_LIST.map(hashOf) });
	if (kind === 'foreign-latest') table.put(WORKFLOW, { mode: 'latestIncrementalKey', data: '42' });
	const foreignBefore = structuredClone(table.rows.get(WORKFLOW)?.value);
	runs++;
	const procs = Array.from({ length: processes }, (_, i) => {
		const busiest = busyMaxMs * random();
		const proc = {
			name: `p${i + 1}`,
			scope: `run${runs}/p${i + 1}/wf/${NODE_ID}`,
			warnings: [],
			dead: false,
			locks: 0,
			records: 0,
		};
		proc.busy = async () => {
			const gap = Math.floor(busiest * random());
			if (gap >= 1) await clock.wait(gap);
		};
		proc.gap = proc.busy;
		return proc;
	});
	// Store errors (errors kind): each call fails before its statement or after it committed (half
	// each) at the seed's rate (5–15 %), or waits 1–90 s before its statement (0.2 %); none in the
	// replays. A seed's faults come from their own stream, so its schedule is the burst kind's.
	const faults = [];
	let storeCalls = 0;
	const injecting = { on: kind === 'errors' };
	const failRate = kind === 'errors' ? 0.05 + 0.1 * rng(seed * 104_729 + 5)() : 0;
	const delayRate = 0.002;
	if (kind === 'errors') {
		const faultRandom = rng(seed * 104_729 + 7);
		for (const proc of procs) {
			proc.fault = (op, scope) => {
				if (!injecting.on) return undefined;
				storeCalls++;
				const draw = faultRandom();
				const what = op === 'record' ? `record of ${scope === 'node' ? 'keys' : 'the lock'}` : op;
				if (draw < failRate) {
					const when = draw < failRate / 2 ? 'before' : 'after';
					faults.push({ proc, op, when, at: clock.now(), ms: 0 });
					note(
						`${proc.name}'s ${what} fails ${when === 'before' ? 'before its statement' : 'after its statement committed'}`,
					);
					return { when };
				}
				if (draw < failRate + delayRate) {
					const ms = 1000 + Math.floor(faultRandom() * 89_000);
					faults.push({ proc, op, when: 'delay', at: clock.now(), ms });
					note(`${proc.name}'s ${what} waits ${ms} ms before its statement`);
					return { when: 'delay', delay: clock.wait(ms) };
				}
				return undefined;
			};
		}
	}
	const never = new Promise(() => undefined);
	// Faults: p1 stops for good right after its first or second lock insert; p1's second record of
	// keys answers after 61–100 s (slow-write) or never (lost-write).
	const faulty = procs[0];
	const stopAtLock = 1 + Math.floor(random() * 2);
	const lateMs = 61_000 + Math.floor(random() * 39_000);
	faulty.before = (op) => {
		if (faulty.dead) return never;
		if (op === 'record-node' && ++faulty.records === 2) {
			if (kind === 'slow-write') {
				note(`p1's record of keys is held ${lateMs} ms before it reaches the store`);
				slowWrites.push({ from: clock.now(), until: clock.now() + lateMs });
				return clock.wait(lateMs);
			}
			if (kind === 'lost-write') {
				note(`p1's record of keys never reaches the store`);
				faulty.stuck = true; // holds the lock for good, as a stopped process does
				slowWrites.push({ from: clock.now(), until: Infinity });
				return never;
			}
		}
		return undefined;
	};
	if (kind === 'stop') {
		const insert = table.insert;
		table.insert = async (context, value, by, ms) => {
			await insert(context, value, by, ms);
			if (by === faulty.name && context === WORKFLOW && ++faulty.locks === stopAtLock) {
				faulty.dead = true;
				note(`p1 stops for good, holding the lock`);
				await never;
			}
		};
	}

	// A delete of the lock right after a recordLock() that found LOCK is the lease's break of a lock
	// left held (a turn's own delete follows its record of keys).
	// `claim.recordFailed`: a record of keys made with this claim's own store threw.
	const observed = (store, proc, claim) => ({
		...store,
		recordLock: async () =>
			(proc.lastCall = `recordLock:${await store.recordLock()}`).endsWith('true'),
		recordKeys: async (keys) => {
			proc.lastCall = 'recordKeys';
			try {
				return await store.recordKeys(keys);
			} catch (error) {
				claim.recordFailed = true;
				throw error;
			}
		},
		deleteLock: async () => {
			proc.breaking = proc.lastCall === 'recordLock:true';
			if (proc.breaking) note(`${proc.name} breaks the lock (held past the lease)`);
			proc.lastCall = 'deleteLock';
			try {
				return await store.deleteLock();
			} finally {
				proc.breaking = false;
			}
		},
	});
	const claimClock = { now: clock.now, wait: clock.wait, random };
	const claimOf =
		override.claim ??
		((proc, key, store) =>
			claimDelivery(proc.scope, key, store, claimClock, (message) => proc.warnings.push(message)));
	const claims = [];
	const start = (proc, delivery, at, label) => {
		const claim = {
			proc,
			delivery,
			label,
			outcome: undefined,
			startedAt: undefined,
			answeredAt: undefined,
		};
		claims.push(claim);
		void clock.wait(at).then(async () => {
			if (proc.dead) return; // a stopped process gets nothing more
			claim.startedAt = clock.now();
			const built = claimStoreOf(deduplicationHelpers(table, proc));
			const store = observed(override.wrapStore ? override.wrapStore(built) : built, proc, claim);
			try {
				claim.outcome = await claimOf(proc, `delivery-${delivery}`, store);
			} catch (error) {
				claim.outcome = `error: ${error.message}`;
			}
			claim.answeredAt = clock.now();
			note(
				`${proc.name} ${label} delivery-${delivery} -> ${claim.outcome} (claimed in ${claim.answeredAt - claim.startedAt} ms)`,
			);
		});
		return claim;
	};
	const deliveries = scenario.bursts + scenario.singles;
	for (let d = 0; d < deliveries; d++) {
		const at = Math.floor(random() * scenario.spreadMs);
		const copies =
			d < scenario.bursts
				? scenario.allCopies
					? processes
					: 2 + Math.floor(random() * (processes - 1))
				: 1;
		const first = Math.floor(random() * processes);
		for (let c = 0; c < copies; c++)
			start(procs[(first + c) % processes], d, at + Math.floor(random() * 10), 'copy');
	}
	const answered = (list) => () =>
		list.every((claim) => claim.outcome !== undefined || claim.proc.dead);
	const violations = [];
	try {
		await clock.run(answered(claims));
	} catch (error) {
		violations.push(
			`STUCK: ${error.message}; unanswered: ${claims
				.filter((c) => c.outcome === undefined && !c.proc.dead)
				.map((c) => `${c.proc.name} delivery-${c.delivery}`)
				.join(', ')}`,
		);
	}
	const errors = kind === 'errors';
	// The workflow row still holds some of the lock's values (a lock left behind).
	const lockHashes = new Set(lockValues().map(hashOf));
	const lockLeft = () =>
		[table.rows.get(WORKFLOW)?.value.data].flat().some((hash) => lockHashes.has(hash));
	/** Runs virtual time until nothing is left to do (writes that answer late, locks given back late). */
	const settle = async () => await clock.run(() => false).catch(() => undefined);
	let leftAfterClaims = false;
	if (errors) {
		await settle();
		leftAfterClaims = lockLeft();
		if (leftAfterClaims)
			note(`the lock is left behind once every claim answered and every write settled`);
	}

	// The oracle: the history of answers.
	const runsOf = Array.from({ length: deliveries }, () => []);
	for (const claim of claims)
		if (['new', 'unsettled', 'unguarded'].includes(claim.outcome))
			runsOf[claim.delivery].push(claim);
	const failed = (claim) => claim.outcome?.startsWith('error');
	// Errors kind: a claim saw a store error if a call of its process failed, or waited, while it was
	// being claimed (a turn answers all the claims it took with the calls of one of them).
	const sawError = (claim) =>
		faults.some(
			(f) => f.proc === claim.proc && f.at <= claim.answeredAt && f.at + f.ms >= claim.startedAt,
		);
	// Doubles are allowed once a lock was force-deleted or the workflow row is another node's (see
	// claims.ts), and, after a write past its deadline, between that write's 'unsettled' claims and
	// other copies (it runs rather than risk losing the delivery); never two 'new' while guarded.
	// With store errors, only for a delivery one of whose copies saw an error.
	const foreign = kind.startsWith('foreign') || Boolean(scenario.foreignRow);
	// Breaking the lock of a stopped process is what the lease is for; a live process's lock is never
	// held that long here (at most a write past its deadline, 100 s < the lease), so breaking one is a
	// fault. With store errors a live process may leave its lock (its give-back failed), and the
	// lease takes it over: counted, and DOUBLED / ERASED show whether a break ever cut a hold short.
	const brokenLive = forceDeleted.filter((f) => f.live);
	if (!errors)
		for (const f of brokenLive)
			violations.push(
				`BROKE A LIVE LOCK: ${f.by} deleted the lock ${f.holder} holds (at ${f.at} ms)`,
			);
	const guarded = (errors || !brokenLive.length) && !foreign;
	const deadlinePassed = slowWrites.length > 0;
	let doubledAfterError = 0;
	let failedVisibly = 0;
	for (let d = 0; d < deliveries; d++) {
		const mine = claims.filter((claim) => claim.delivery === d);
		const owed = mine.some((claim) => !claim.proc.dead);
		// A delivery none of whose copies ran is lost, unless one failed visibly (its execution errored).
		if (!runsOf[d].length && mine.some(failed)) failedVisibly++;
		else if (owed && !runsOf[d].length)
			violations.push(
				`LOST: delivery-${d} (${mine.map((c) => `${c.proc.name}: ${c.outcome ?? 'no answer'}`).join(', ')})`,
			);
		const fresh = runsOf[d].filter((c) => c.outcome === 'new').length;
		const twice = fresh > 1 || (runsOf[d].length > 1 && !deadlinePassed);
		if (twice && errors && mine.some(sawError)) doubledAfterError += guarded ? 1 : 0;
		else if (guarded && twice)
			violations.push(
				`DOUBLED: delivery-${d} ran in ${runsOf[d].map((c) => `${c.proc.name} (${c.outcome})`).join(' and ')}`,
			);
	}
	for (const claim of claims) {
		if (!failed(claim)) continue;
		// Only a claim whose own record of keys failed (and whose retry failed too) may fail.
		if (!errors || !claim.recordFailed)
			violations.push(`ERROR: ${claim.proc.name} delivery-${claim.delivery}: ${claim.outcome}`);
	}
	// The claim limit as docs/webhook-trigger.md states it: without the lock after twice the lease a claim runs,
	// a record of keys is waited for a write deadline, its retries start within another.
	const claimLimitMs = 2 * claimPolicy.leaseMs + 2 * claimPolicy.writeDeadlineMs;
	const maxClaimMs = Math.max(
		0,
		...claims.filter((c) => c.answeredAt !== undefined).map((c) => c.answeredAt - c.startedAt),
	);
	const overLimit = claims.filter((c) => c.answeredAt - c.startedAt > claimLimitMs);
	const late =
		errors && overLimit.length
			? [
					`STUCK: ${overLimit.map((c) => `${c.proc.name} delivery-${c.delivery} answered after ${c.answeredAt - c.startedAt} ms`).join(', ')}, past the claim limit (${claimLimitMs} ms)`,
				]
			: [];
	violations.push(...late);
	// With store errors a turn past the claim limit records without the lock (by design, its claims run): erasures are counted, DOUBLED shows their cost.
	if (guarded && !errors)
		for (const e of erased)
			violations.push(
				`ERASED: ${e.by}'s record at ${e.at} ms dropped ${e.dropped} recorded key(s)`,
			);
	if (foreign) {
		const after = table.rows.get(WORKFLOW)?.value;
		const survived = Array.isArray(foreignBefore.data)
			? foreignBefore.data.every((hash) => after?.data?.includes(hash))
			: after?.data === foreignBefore.data;
		if (!survived)
			violations.push(
				`FOREIGN: the other node's row changed: ${JSON.stringify(foreignBefore)} -> ${JSON.stringify(after)}`,
			);
		for (const proc of procs) {
			const count = proc.warnings.filter((w) => w === FOREIGN_ROW_WARNING).length;
			if (
				claims.some((c) => c.proc === proc && c.startedAt !== undefined) &&
				(count !== 1 || proc.warnings.length !== 1)
			)
				violations.push(
					`FOREIGN: ${proc.name} warned ${proc.warnings.length} time(s), ${count} with the foreign-row warning`,
				);
		}
	} else
		for (const proc of procs)
			if (proc.warnings.length)
				violations.push(`WARNED: ${proc.name} warned without a foreign row: ${proc.warnings[0]}`);
	for (const late of slowWrites) {
		const held = claims.filter(
			(c) =>
				c.proc === faulty &&
				c.startedAt !== undefined &&
				c.startedAt <= late.from &&
				c.answeredAt >= late.from + claimPolicy.writeDeadlineMs - 1 &&
				c.answeredAt <= late.from + claimPolicy.writeDeadlineMs + 1 &&
				c.answeredAt < late.until,
		); // the turn of that write (later turns no longer wait for it)
		if (held.some((c) => c.outcome !== 'unsettled'))
			violations.push(
				`DEADLINE: a claim behind p1's late write answered ${held.map((c) => c.outcome).join(', ')}`,
			);
		// The lock of that write's turn: a later turn's own lock (taken after the old one was broken) is its to give back.
		const retaken = (d) =>
			lockInserts.some((i) => i.by === faulty.name && i.at > late.from && i.at < d.at);
		const early = lockDeletes.find(
			(d) => d.by === faulty.name && d.at > late.from && d.at < late.until && !retaken(d),
		);
		if (early)
			violations.push(
				`DEADLINE: p1 gave the lock back at ${early.at} ms, before its write (sent at ${late.from} ms) landed at ${late.until} ms`,
			);
	}

	// Replays once everything settled (no store errors any more): each delivery once more, to a random live process.
	const replayAll = !violations.length && !foreign && kind !== 'lost-write';
	// Deliveries that failed visibly whose key landed anyway: their replays answer 'duplicate', so they never run.
	const recorded = new Set([table.rows.get(NODE)?.value.data].flat());
	const droppedAfterFailure = runsOf.filter(
		(r, d) =>
			!r.length &&
			claims.some((c) => c.delivery === d && failed(c)) &&
			recorded.has(hashOf(`delivery-${d}`)),
	).length;
	injecting.on = false;
	let replayDoubled = 0;
	if (replayAll) {
		const live = procs.filter((proc) => !proc.dead);
		const base = clock.now() + 1000;
		const replays = Array.from({ length: deliveries }, (_, d) =>
			start(
				live[Math.floor(random() * live.length)],
				d,
				1000 + Math.floor(random() * 2000),
				'replay',
			),
		);
		try {
			await clock.run(answered(replays));
		} catch (error) {
			violations.push(`STUCK: replays: ${error.message}`);
		}
		// A delivery that ran is a duplicate now; one that never ran (its only copy went to a stopped
		// process, or failed before its key landed) runs.
		for (const replay of replays) {
			const expected =
				runsOf[replay.delivery].length || recorded.has(hashOf(`delivery-${replay.delivery}`))
					? 'duplicate'
					: 'new';
			// With store errors a key erased by a record made without the lock (a turn past the claim
			// limit) runs again on replay: a double, allowed where a copy saw an error (as DOUBLED).
			const erasedRun =
				errors &&
				expected === 'duplicate' &&
				replay.outcome === 'new' &&
				runsOf[replay.delivery].length;
			if (
				erasedRun &&
				claims.some((c) => c.delivery === replay.delivery && c.label === 'copy' && sawError(c))
			)
				replayDoubled++;
			else if (replay.outcome !== undefined && replay.outcome !== expected)
				violations.push(
					`REPLAY: delivery-${replay.delivery} replayed after ${base} ms in ${replay.proc.name} answered ${replay.outcome}, not ${expected}`,
				);
		}
	}
	// With store errors the lock is gone once everything settled (a lock left behind is taken over by the replays' claims).
	if (errors && (replayAll || foreign)) {
		await settle();
		if (lockLeft())
			violations.push(
				`LOCK LEFT: the workflow row still holds the lock's values once everything settled: ${JSON.stringify(table.rows.get(WORKFLOW)?.value)}`,
			);
	}
	const outcomes = {};
	for (const claim of claims)
		outcomes[claim.outcome ?? 'none'] = (outcomes[claim.outcome ?? 'none'] ?? 0) + 1;
	const label = `seed ${seed}: ${kind}${errors ? ` (${Math.round(failRate * 100)} % of store calls fail)` : ''}${scenario.foreignRow ? ", another node's list in the workflow row" : ''}, writes ${write.label}, ${processes} processes, busy gaps up to ${busyMaxMs} ms`;
	const stats = {
		claims: claims.length,
		deliveries,
		storeCalls,
		faults: faults.length,
		failedBefore: faults.filter((f) => f.when === 'before').length,
		failedAfter: faults.filter((f) => f.when === 'after').length,
		delayed: faults.filter((f) => f.when === 'delay').length,
		failedVisibly,
		droppedAfterFailure,
		doubled: runsOf.filter((r) => r.length > 1).length,
		doubledGuarded: foreign ? 0 : runsOf.filter((r) => r.length > 1).length,
		guardedDeliveries: foreign ? 0 : deliveries,
		doubledAfterError,
		replayDoubled,
		erased: erased.length,
		overLimit: overLimit.length,
		leftAfterClaims,
		breaks: forceDeleted.length,
		maxClaimMs,
		touched: claims.filter(sawError).length,
	};
	return {
		seed,
		scenario,
		label,
		claims,
		violations,
		late,
		trace,
		forceDeleted,
		outcomes,
		doubled: runsOf.filter((r) => r.length > 1).length,
		guarded,
		stats,
	};
}

/** A failure's report: seed, replay command, the violations and a short trace around the first. */
function reportOf(result, kind = result.scenario.kind) {
	const key = /delivery-\d+/.exec(result.violations[0] ?? '')?.[0];
	const relevant = result.trace.filter(
		(line) =>
			line.includes('lock row') ||
			line.includes('stops') ||
			line.includes('never') ||
			line.includes('held') ||
			line.includes(' fails ') ||
			line.includes(' waits ') ||
			line.includes('left behind') ||
			(key && line.includes(`${key} `)) ||
			line.includes('node row'),
	);
	const shown =
		relevant.length > 80
			? [...relevant.slice(0, 40), `  … ${relevant.length - 80} lines …`, ...relevant.slice(-40)]
			: relevant;
	return [
		`${result.label}`,
		`replay: ${replayCommand(result.seed, kind)}`,
		...result.violations.slice(0, 8).map((v) => `  ${v}`),
		'trace:',
		...shown,
	].join('\n');
}

/** An errors seed: a quarter of them with another node's list in the workflow row. */
const errorsScenario = (seed) => ({
	kind: 'errors',
	foreignRow: seed % 4 === 0 ? 'list' : undefined,
});

/** The errors kind's figures over its seeds: what failed, what that cost. */
function errorFigures(t, seeds) {
	const pct = (part, whole) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
	return [
		`claim model, errors, ${seeds} seeds: ${t.storeCalls} store calls, ${t.faults} faults (${t.failedBefore} before the statement, ${t.failedAfter} after it committed, ${t.delayed} waited 1–90 s)`,
		`  ${t.claims} claims of ${t.deliveries} deliveries, ${t.touched} claims (${pct(t.touched, t.claims)}) saw an error`,
		`  failed visibly (no copy ran, one rejected): ${t.failedVisibly} deliveries (${pct(t.failedVisibly, t.deliveries)}), ${t.droppedAfterFailure} of them with their key recorded (a replay answers 'duplicate')`,
		`  doubled: ${t.doubled} deliveries (${pct(t.doubled, t.deliveries)}); without another node's row ${t.doubledGuarded} of ${t.guardedDeliveries} (${pct(t.doubledGuarded, t.guardedDeliveries)}), all after a store error: ${t.doubledAfterError}; replays that ran again (their key erased): ${t.replayDoubled}`,
		`  records that erased a recorded key: ${t.erased}; claims answered past the claim limit: ${t.overLimit}`,
		`  lock left behind once every claim answered: ${t.leftAfterClaims} of ${seeds} seeds; locks broken after the lease: ${t.breaks}; longest claim ${t.maxClaimMs} ms`,
	].join('\n');
}

/** Scenario kinds, each its own test: seeds per kind in CI (about 15 s in all on two idle cores). */
const KIND_TESTS = [
	{
		kind: 'burst',
		seeds: 300,
		name: 'bursts of copies to 2–4 processes, unrelated deliveries between, replays: none lost, none doubled, replays are duplicates',
	},
	{
		kind: 'foreign',
		seeds: 120,
		name: "another node's row (a list, or a 'latest'-mode value) in the workflow scope: none lost, its values kept, one warning per process",
	},
	{
		kind: 'slow-write',
		seeds: 120,
		name: "a record of keys 61–100 s late: its claims answer 'unsettled' at the deadline and run, the lock is kept until it lands, none lost",
	},
	{
		kind: 'stop',
		seeds: 160,
		name: 'a process stops for good holding the lock: the others break it after the lease, none lost, none doubled',
	},
	{
		kind: 'errors',
		seeds: 120,
		name: "5–15 % of store calls fail before their statement or after it committed, 0.2 % wait 1–90 s, another node's list on a quarter of the seeds: none lost (a claim whose own record of keys failed may fail, visibly), every claim answers within the claim limit, doubles only where a copy saw an error, the other node's values kept, the lock gone once settled",
	},
	{
		kind: 'lost-write',
		seeds: 40,
		name: "a record of keys that never answers: its claims answer 'unsettled', the process's later claims still answer, none lost",
	},
];

describe('the claim protocol in a model of n8n processes sharing processed_data (seeded, virtual time)', () => {
	for (const { kind, seeds, name } of KIND_TESTS) {
		const chosen =
			SEED !== undefined
				? [SEED]
				: Array.from({ length: Number(process.env.VMB_CLAIM_SEEDS ?? seeds) }, (_, i) => i + 1);
		test(`${kind}: ${name} (${chosen.length} seeds)`, async () => {
			const failures = [];
			const totals = {};
			const lateSeeds = [];
			for (const seed of chosen) {
				const result = await runSchedule(
					seed,
					kind === 'errors'
						? errorsScenario(seed)
						: { kind: kind === 'foreign' ? (seed % 2 ? 'foreign-list' : 'foreign-latest') : kind },
				);
				if (result.late.length) lateSeeds.push(seed);
				if (result.violations.length) failures.push(result);
				for (const [name, value] of Object.entries(result.stats))
					totals[name] =
						name === 'maxClaimMs'
							? Math.max(totals[name] ?? 0, value)
							: (totals[name] ?? 0) + Number(value);
				if (SEED !== undefined) console.log(`${result.label}\n${result.trace.join('\n')}`);
			}
			if (kind === 'errors')
				console.log(
					`${errorFigures(totals, chosen.length)}\n  seeds with a claim past the claim limit: ${lateSeeds.join(', ') || 'none'}`,
				);
			const reports = failures.map((f) => reportOf(f, kind));
			const byRule = {};
			for (const f of failures)
				for (const rule of new Set(f.violations.map((v) => v.split(':')[0])))
					byRule[rule] = [...(byRule[rule] ?? []), f.seed];
			const rules = Object.entries(byRule).map(
				([rule, seeds]) => `${rule} (${seeds.length}): ${seeds.join(', ')}`,
			);
			if (failures.length)
				console.log(
					`claim model, ${kind}: ${failures.length} of ${chosen.length} seeds fail\n${rules.join('\n')}\n\n${reports[0]}`,
				);
			expect(
				reports.slice(0, 3).join('\n\n') || 'none',
				`failing seeds: ${failures.map((f) => f.seed).join(', ')}`,
			).toBe('none');
		});
	}

	test('a stopped holder: the others go on after the lease', async () => {
		const result = await runSchedule(5, { kind: 'stop', write: slow(200), processes: 3 });
		expect(result.forceDeleted.length, reportOf(result, 'stop')).toBeGreaterThan(0);
		expect(
			result.claims.filter((c) => c.answeredAt > result.forceDeleted[0].at).length,
			reportOf(result, 'stop'),
		).toBeGreaterThan(0);
	});
});

describe('the same checks catch what breaks the guarantee (mutants)', () => {
	const caught = async (override, seeds = 12) => {
		for (let seed = 1; seed <= seeds; seed++) {
			const result = await runSchedule(seed, {
				kind: 'burst',
				processes: 3,
				allCopies: true,
				...override,
			});
			const doubled = result.violations.filter((v) => v.startsWith('DOUBLED'));
			if (doubled.length) return { seed, doubled, result };
		}
		return undefined;
	};

	test('a store whose insert does not enforce the primary key: two processes hold the lock, doubles found', async () => {
		const found = await caught({ noPrimaryKey: true, write: slow(200) });
		expect(found, 'no double found').toBeDefined();
		console.log(`mutant no primary key: caught at seed ${found.seed}: ${found.doubled[0]}`);
	});

	test('a plain check-and-record without the lock: doubles found at 200 ms', async () => {
		const plain = async (proc, key, store) =>
			(await store.recordKeys([key])).has(key) ? 'duplicate' : 'new';
		const found = await caught({ claim: plain, write: slow(200) });
		expect(found, 'no double found').toBeDefined();
		console.log(`mutant plain check-and-record: caught at seed ${found.seed}: ${found.doubled[0]}`);
	});

	test("with store errors, a record retried after a failure that takes its own landed key for a copy's: lost found", async () => {
		// The store tries a failed record of keys again itself: a key its first try recorded before the reply was lost is then 'processed', a duplicate.
		const retried = (store) => ({
			...store,
			recordKeys: async (keys) =>
				await store.recordKeys(keys).catch(async () => await store.recordKeys(keys)),
		});
		let found;
		for (let seed = 1; seed <= 40 && !found; seed++) {
			const result = await runSchedule(seed, { kind: 'errors', wrapStore: retried });
			const lost = result.violations.filter((v) => v.startsWith('LOST'));
			if (lost.length) found = { seed, lost };
		}
		expect(found, 'no lost delivery found').toBeDefined();
		console.log(`mutant retried record: caught at seed ${found.seed}: ${found.lost[0]}`);
	});

	test('a lock taken as held even when LOCK was there: doubles found', async () => {
		const found = await caught(
			{
				wrapStore: (store) => ({
					...store,
					recordLock: async () => (await store.recordLock(), false),
				}),
				write: slow(200),
				busyMaxMs: 2000,
			},
			30,
		);
		expect(found, 'no double found').toBeDefined();
		console.log(`mutant held over LOCK: caught at seed ${found.seed}: ${found.doubled[0]}`);
	});
});

describe('claim times in the model (virtual ms; figures, not assertions of speed)', () => {
	test('a burst of 10 deliveries, each copied to every process, and a lone delivery, per write delay', async () => {
		const lines = [];
		for (const write of WRITE_DELAYS) {
			const lone = await runSchedule(1, {
				kind: 'burst',
				write,
				processes: 1,
				busyMaxMs: 0,
				bursts: 0,
				singles: 1,
			});
			expect(lone.violations, reportOf(lone)).toEqual([]);
			const loneMs = lone.claims[0].answeredAt - lone.claims[0].startedAt;
			for (const processes of [2, 3]) {
				const result = await runSchedule(1, {
					kind: 'burst',
					write,
					processes,
					busyMaxMs: 0,
					bursts: 10,
					singles: 0,
					spreadMs: 1,
					allCopies: true,
				});
				expect(result.violations, reportOf(result)).toEqual([]);
				const times = result.claims.map((c) => c.answeredAt - c.startedAt);
				const mean = Math.round(times.reduce((a, b) => a + b, 0) / times.length);
				lines.push(
					`claim time, writes ${write.label.padEnd(7)} ${processes} processes: burst of 10 × ${processes} copies mean ${mean} ms, max ${Math.max(...times)} ms; lone delivery ${loneMs} ms`,
				);
			}
		}
		console.log(lines.join('\n'));
	});
});
