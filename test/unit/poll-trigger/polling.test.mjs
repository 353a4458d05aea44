// Pure decisions of the poll trigger (nodes/VirtualMailboxPollTrigger/floor.ts, scans.ts, state.ts), called directly.
import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';

const { raiseFloor, recordItems, rememberedKey, selectNew, primingDone, isAboveFloor, orderKeyOf } =
	dist('nodes/VirtualMailboxPollTrigger/floor.js');
const { examineScans, isNewScan, newestOf, completionKey } = dist(
	'nodes/VirtualMailboxPollTrigger/scans.js',
);
const { fingerprintOf } = dist('nodes/VirtualMailboxPollTrigger/state.js');
const { LATE_WINDOW_MS, MAX_REMEMBERED, MAX_EMIT_PER_POLL } = dist(
	'nodes/VirtualMailboxPollTrigger/limits.js',
);

const T0 = Date.UTC(2026, 10, 24, 12, 0);
const hour = 3_600_000;
const mail = (id, hours) => ({
	id: String(id),
	arrival_date: new Date(T0 + hours * hour).toISOString(),
});

describe('the stated limits (docs/poll-trigger.md)', () => {
	test('72 h, 1,000 remembered, 1,000 a poll', () => {
		expect([LATE_WINDOW_MS, MAX_REMEMBERED, MAX_EMIT_PER_POLL]).toEqual([72 * hour, 1_000, 1_000]);
	});
});

describe('the floor', () => {
	test('the newest recorded arrival less 72 h, below every id that arrived at that instant', () => {
		const floor = raiseFloor(undefined, { 10: T0, 11: T0 - 100 * hour });
		expect(floor).toEqual([T0 - LATE_WINDOW_MS, -1]);
		expect(isAboveFloor([T0 - LATE_WINDOW_MS, 1], floor)).toBe(true); // exactly 72 h before: still above
		expect(isAboveFloor([T0 - LATE_WINDOW_MS - 1, 99], floor)).toBe(false);
	});

	test('the 1,000th newest recorded item when 1,000 are recorded within the window', () => {
		const recorded = Object.fromEntries(
			Array.from({ length: 1_200 }, (_, n) => [String(n + 1), T0 - n * 60_000]),
		);
		expect(rememberedKey(recorded)).toEqual([T0 - 999 * 60_000, 1_000]);
		expect(raiseFloor(undefined, recorded, rememberedKey(recorded))).toEqual([
			T0 - 999 * 60_000,
			1_000,
		]);
	});

	test('its 1,000-remembered part lags one poll (limit 3), so at most 2,000 ids are kept; priming applies it at once', () => {
		const primed = recordItems(
			{ recorded: {} },
			Array.from({ length: 1_200 }, (_, n) => mail(n + 1, -n / 60)),
			{ atOnce: true },
		);
		expect(primed.floor).toEqual([T0 - 999 * 60_000, 1_000]);
		expect(Object.keys(primed.recorded)).toHaveLength(999);
		// a poll emits 1,000 newer items: the floor keeps its place for the next poll
		const next = recordItems(
			primed,
			Array.from({ length: 1_000 }, (_, n) => mail(5_000 + n, 1 + n / 60)),
		);
		expect(next.floor).toEqual(primed.floor);
		expect(Object.keys(next.recorded)).toHaveLength(1_999);
		// and the poll after it raises it to the 1,000th newest of then
		const after = recordItems(next, []);
		expect(after.floor).toEqual([T0 + hour, 5_000]);
		expect(Object.keys(after.recorded)).toHaveLength(999);
	});

	test('an item without arrival_date has no order key and is never new mail', () => {
		expect(orderKeyOf({ id: '5', arrival_date: null })).toBeUndefined();
		expect(
			selectNew([{ id: '5', arrival_date: null }, mail(6, 1)], undefined, {}).emit.map((m) => m.id),
		).toEqual(['6']);
	});

	test('never goes down, even when the recorded ids that raised it are gone', () => {
		expect(raiseFloor([T0, 5], { 1: T0 - hour })).toEqual([T0, 5]);
	});

	test('recordItems raises the floor and forgets the ids at or below it', () => {
		const { floor, recorded } = recordItems({ recorded: { 1: T0 - 100 * hour } }, [
			mail(2, 0),
			mail(3, -1),
		]);
		expect(floor).toEqual([T0 - LATE_WINDOW_MS, -1]);
		expect(Object.keys(recorded).sort()).toEqual(['2', '3']);
	});
});

describe('selectNew', () => {
	test('above the floor and not recorded, each id once, oldest first (ties by id)', () => {
		const listed = [mail(9, 5), mail(8, 5), mail(7, 4), mail(8, 5), mail(6, 1), mail(5, -80)];
		const { emit, waiting } = selectNew(listed, [T0 + hour, 6], { 7: T0 + 4 * hour }); // 6 is the floor itself
		expect(emit.map((m) => m.id)).toEqual(['8', '9']);
		expect(waiting).toBe(0);
	});

	test('at most 1,000: the oldest; the rest wait', () => {
		const listed = Array.from({ length: 1_250 }, (_, n) => mail(5_000 - n, -n / 100));
		const { emit, waiting } = selectNew(listed, undefined, {});
		expect(emit).toHaveLength(MAX_EMIT_PER_POLL);
		expect(emit[0].id).toBe(String(5_000 - 1_249));
		expect(waiting).toBe(250);
		expect(selectNew(listed, undefined, {}).oldestWaiting).toEqual(orderKeyOf(listed[249]));
	});
});

describe('primingDone', () => {
	test('past 72 h below the newest item, or at 1,000 items', () => {
		const keys = (items) => items.map(orderKeyOf);
		expect(primingDone(keys([mail(3, 0), mail(2, -71)]))).toBe(false);
		expect(primingDone(keys([mail(3, 0), mail(2, -73)]))).toBe(true);
		expect(primingDone(keys(Array.from({ length: 1_000 }, (_, n) => mail(2_000 - n, 0))))).toBe(
			true,
		);
		expect(primingDone([])).toBe(false);
	});
});

describe('fingerprintOf', () => {
	test('the event and the filters set, in any order; empty filters do not count', () => {
		const a = fingerprintOf('new-mail', {
			status: ['inbox'],
			mail_type: ['package', 'letter'],
			search: undefined,
			sort: 'newest',
		});
		const b = fingerprintOf('new-mail', {
			sort: 'newest',
			mail_type: ['letter', 'package'],
			status: ['inbox'],
			scan_status: [],
		});
		expect(a).toEqual(b);
		expect(fingerprintOf('new-mail', { status: ['inbox'], sort: 'newest' })).not.toEqual(a);
		expect(fingerprintOf('scan-completed', {})).not.toEqual(fingerprintOf('open-completed', {}));
	});
});

describe('scans', () => {
	const at = (minutes) => new Date(T0 + minutes * 60_000).toISOString();
	const scan = (id, minutes, status = 'COMPLETED', updated = 0) => ({
		id,
		type: 'SCAN_REQUEST',
		status,
		created_at: at(minutes),
		status_updated_at: at(updated),
	});
	const seen = { newestCreated: T0, newestIds: ['s0'] };

	test('a scan is new when created after the newest seen, or in the same instant and not seen', () => {
		expect(isNewScan(scan('s1', 1), seen)).toBe(true);
		expect(isNewScan(scan('s2', 0), seen)).toBe(true);
		expect(isNewScan(scan('s0', 0), seen)).toBe(false);
		expect(isNewScan(scan('s3', -1), seen)).toBe(false);
		expect(isNewScan(scan('s3', -1), {})).toBe(true); // no scan seen at priming: every scan is new
		expect(newestOf([scan('s4', 2), scan('s5', 2), scan('s6', 1)], seen)).toEqual({
			newestCreated: T0 + 2 * 60_000,
			newestIds: ['s4', 's5'],
		});
	});

	test('emits completions of scans pending before or now, and of new scans; not old ones, not twice', () => {
		const { completed, pending, askById } = examineScans({
			pendingBefore: { p1: T0 - 1e6, p2: T0 - 2e6, p3: T0 - 3e6 },
			pendingNow: [scan('p3', -50, 'RESTORING'), scan('n1', 1, 'IN_PROCESS')],
			newest: [
				scan('n1', 1, 'COMPLETED', 2),
				scan('n2', 1),
				scan('old', -5),
				scan('p1', -16),
				scan('e1', 3),
			],
			seen,
			emitted: new Set([completionKey(scan('e1', 3))]),
		});
		expect(completed.map((s) => s.id)).toEqual(['n1', 'n2', 'p1']);
		expect(pending).toEqual({ p3: T0 - 50 * 60_000 }); // n1 completed between the two requests
		expect(askById).toEqual(['p2']); // pending before, in neither list
	});

	test('a restored scan completes again under a new key', () => {
		expect(completionKey(scan('r', 0, 'COMPLETED', 10))).not.toBe(
			completionKey(scan('r', 0, 'COMPLETED', 20)),
		);
		const again = examineScans({
			pendingBefore: { r: T0 },
			pendingNow: [],
			newest: [scan('r', 0, 'COMPLETED', 20)],
			seen,
			emitted: new Set([completionKey(scan('r', 0, 'COMPLETED', 10))]),
		});
		expect(again.completed.map((s) => s.id)).toEqual(['r']);
	});
});
