// Scan Completed / Open Completed when the API shows a scan status the spec does not list (it
// speaks of a "pending scan" and leaves the moves into other statuses "not shown"): such a scan is
// not finished yet, so its completion is emitted, once, when the API later says COMPLETED.
// The simulator holds the unlisted status itself (its status filters do not list it, as a real
// service's would not); its answers are checked against the SDK's types as declared (a plain
// string for a scan status).
import { beforeEach, describe, expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim, control, poll } = await simulatorForFile({ count: 60, seed: 11 });
beforeEach(() => (sim.settings.unlistedValues = true));

const setStatus = (scan, status) => control(`/scans/${scan.id}/status`, { status });
const scanCompleted = { event: 'scan-completed', options: {} };
const letter = () => sim.db.mails.find((m) => m.mail_type === 'letter' && !m.scan);

describe('Scan Completed with scan statuses the spec does not list', () => {
	for (const unlisted of ['PENDING', 'pending', 'Queued']) {
		test(`a new scan first shown ${unlisted} is emitted once when the API says COMPLETED`, async () => {
			let { saved } = await poll(scanCompleted);
			const scan = await control(`/mails/${letter().id}/scan`, { type: 'scan' });
			await setStatus(scan, unlisted);
			for (let n = 0; n < 2; n++) {
				const waiting = await poll(scanCompleted, saved);
				expect(waiting.items).toEqual([]);
				saved = waiting.saved;
			}
			await setStatus(scan, 'COMPLETED');
			const done = await poll(scanCompleted, saved);
			expect(done.items.map((i) => [i.json.id, i.json.status])).toEqual([[scan.id, 'COMPLETED']]);
			expect((await poll(scanCompleted, done.saved)).items).toEqual([]);
		});
	}

	test('a scan seen in process, then in an unlisted status, then completed is emitted once', async () => {
		const scan = await control(`/mails/${letter().id}/scan`, { type: 'scan' });
		const primed = await poll(scanCompleted);
		await setStatus(scan, 'AWAITING_SCAN');
		const waiting = await poll(scanCompleted, primed.saved);
		expect(waiting.items).toEqual([]);
		await setStatus(scan, 'COMPLETED');
		const done = await poll(scanCompleted, waiting.saved);
		expect(done.items.map((i) => i.json.id)).toEqual([scan.id]);
		expect((await poll(scanCompleted, done.saved)).items).toEqual([]);
	});

	test('a completion the API spells Completed is emitted, with the status COMPLETED', async () => {
		const primed = await poll(scanCompleted);
		const scan = await control(`/mails/${letter().id}/scan`, { type: 'scan' });
		const seen = await poll(scanCompleted, primed.saved);
		await setStatus(scan, 'Completed');
		const done = await poll(scanCompleted, seen.saved);
		expect(done.items.map((i) => [i.json.id, i.json.status])).toEqual([[scan.id, 'COMPLETED']]);
	});
});
