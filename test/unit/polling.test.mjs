// Pure helpers of the poll trigger (nodes/VirtualMailboxPollTrigger/polling.ts), called directly.
import { describe, expect, test } from 'vitest';
import { dist } from '../harness/n8n-core-harness.mjs';

const { examineScans, newScanWindow, nextScanWindow, scanFindings, scanWalkDone, takeBacklog, SCAN_OVERLAP_MS } = dist('nodes/VirtualMailboxPollTrigger/polling.js');

const at = (minutes) => new Date(Date.UTC(2026, 10, 24, 12, 0) + minutes * 60_000).toISOString();
const scan = (id, minutes, status = 'COMPLETED', type = 'SCAN_REQUEST') => ({ id, mail_id: `m${id}`, type, status, created_at: at(minutes) });
const findings = () => scanFindings();

describe('examineScans', () => {
	const walk = (extra = {}) => ({ category: 'SCAN_REQUEST', pending: {}, emitted: new Set(), window: newScanWindow(at(0), ['s0']), ...extra });

	test('emits completions that are new or were pending, not old ones, not emitted ones, not other types', () => {
		const seen = findings();
		const w = walk({ pending: { old: 'm1' }, emitted: new Set(['twice']) });
		examineScans([scan('new', 5), scan('twice', 4), scan('open', 3, 'COMPLETED', 'UNBOXING_REQUEST'), scan('s0', 0), scan('before', -60), scan('old', -120)], w, seen);
		expect(seen.completed.map((s) => s.id)).toEqual(['new', 'old']);
		expect(scanWalkDone(w, seen)).toBe(true);
	});

	test('a scan created a little before the newest one seen, listed late, is still new; one seen already is not', () => {
		const seen = findings();
		examineScans([scan('late', -SCAN_OVERLAP_MS / 60_000 + 1), scan('s0', 0)], walk(), seen);
		expect(seen.completed.map((s) => s.id)).toEqual(['late']);
	});

	test('records scans in process, and the newest scans for the next window', () => {
		const seen = findings();
		examineScans([scan('a', 30, 'IN_PROCESS'), scan('b', 25, 'RESTORING'), scan('c', 1), scan('d', -30)], walk(), seen);
		expect(seen.pending).toEqual({ a: 'ma', b: 'mb' });
		expect(seen.newestCreated).toBe(at(30));
		expect(nextScanWindow(seen).newestScanIds).toEqual(['a', 'b']);
	});

	test('the walk goes on until every scan pending last time is found', () => {
		const seen = findings();
		const w = walk({ pending: { deep: 'm9' } });
		examineScans([scan('x', 1), scan('y', -60)], w, seen);
		expect(scanWalkDone(w, seen)).toBe(false);
		examineScans([scan('deep', -90, 'IN_PROCESS')], w, seen);
		expect(scanWalkDone(w, seen)).toBe(true);
		expect(seen.pending).toEqual({ deep: 'mdeep' });
	});

	test('scans pending for long sit deep: past the new scans it reads on only while that costs fewer requests than asking for each by id', () => {
		const seen = findings();
		const w = walk({ pending: { p1: 'm1', p2: 'm2' } });
		examineScans([scan('x', 1), scan('y', -60)], w, seen);
		expect(scanWalkDone(w, seen)).toBe(false); // 2 missing, 1 page past the new ones
		examineScans([scan('z', -90)], w, seen);
		expect(scanWalkDone(w, seen)).toBe(false); // 2 missing, 2 pages
		examineScans([scan('p1', -100, 'IN_PROCESS')], w, seen);
		expect(scanWalkDone(w, seen)).toBe(true); // 1 missing, 3 pages: p2 is asked for by id
	});

	test('a list that is not newest first is never taken as passed: only its end ends the walk', () => {
		const seen = findings();
		const w = walk();
		examineScans([scan('x', -60), scan('y', 5)], w, seen);
		expect(seen.ordered).toBe(false);
		examineScans([scan('z', -90)], w, seen);
		expect(scanWalkDone(w, seen)).toBe(false);
		expect(seen.completed.map((s) => s.id)).toEqual(['y']);
	});

	test('a scan listed twice (shifted by a new one) counts once', () => {
		const seen = findings();
		const w = walk();
		examineScans([scan('n', 3)], w, seen);
		examineScans([scan('n', 3)], w, seen);
		expect(seen.completed).toHaveLength(1);
	});
});

describe('takeBacklog', () => {
	const mail = (id, minutes) => ({ id: String(id), arrival_date: at(minutes) });

	test('skips items at or above the last one read (a cursor that counts positions lists them again), stops at mail seen before', () => {
		const part = { cursor: 'c', after: { id: '50', arrival_date: at(50) }, stopArrival: at(10) };
		const page = [mail(51, 51), mail(50, 50), mail(49, 49), mail(48, 48), mail(11, 10), mail(10, 10), mail(9, 9)];
		expect(takeBacklog(page, part, new Set(['10']))).toEqual({ items: [mail(49, 49), mail(48, 48), mail(11, 10)], done: true });
	});

	test('same arrival date: ordered by id, so only the ids below the last one read are taken', () => {
		const part = { cursor: 'c', after: { id: '50', arrival_date: at(50) }, stopArrival: at(0) };
		const page = [mail(51, 50), mail(50, 50), mail(49, 50)];
		expect(takeBacklog(page, part, new Set())).toEqual({ items: [mail(49, 50)], done: false });
	});
});
