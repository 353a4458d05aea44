// A Poll Trigger whose API key is replaced by a new key of the same account (a rotation) goes on
// from its state for every event: mail that matches its Filters and arrived around the rotation is
// emitted even when the newest mail the trigger recorded lies deeper than the mailbox's newest
// page, and a scan that was in process at the last poll and completes around it is emitted once.
import { afterEach, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { pollsInFlight } = dist('nodes/shared/state/pollsInFlight.js');

const fixture = await simulatorForFile({ count: 12, seed: 8 }, { reset: false });
const { sim, credentials, control } = fixture;
afterEach(() => pollsInFlight.clear());

const packages = { event: 'new-mail', filters: { mailType: ['package'] }, options: {} };
const scanCompleted = { event: 'scan-completed', options: {} };
const poll = (parameters, workflowId, saved, creds) =>
	fixture.poll(parameters, saved, { workflowId, credentials: creds });

test('a rotation of the API key on a trigger filtered to packages, whose last emitted package lies under more than a page of letters polled since, emits the package that arrived around it', async () => {
	const pollPackages = (saved, creds) => poll(packages, 'wf-rotation-filters', saved, creds);
	const primed = await pollPackages({}, credentials);
	expect(primed.items).toEqual([]);
	const first = (await control('/mail', { sender_name: 'First package', mail_type: 'package' }))
		.mail.id;
	const emitted = await pollPackages(primed.saved, credentials);
	expect(emitted.items.map((item) => item.json.id)).toEqual([first]);
	// Letters the trigger does not watch arrive; the trigger polls meanwhile and emits nothing.
	for (let n = 0; n < 105; n++)
		await control('/mail', { sender_name: `Letter ${n}`, mail_type: 'letter' });
	const quiet = await pollPackages(emitted.saved, credentials);
	expect(quiet.items).toEqual([]);
	// The key is rotated (same account, server and credential); one package arrives meanwhile:
	// the only new item in the whole mailbox since the last poll.
	const meanwhile = (
		await control('/mail', {
			sender_name: 'Package arrived around the rotation',
			mail_type: 'package',
		})
	).mail.id;
	const next = await pollPackages(quiet.saved, { ...credentials, apiKey: sim.readOnlyKey });
	expect(next.items.map((item) => item.json.id)).toEqual([meanwhile]);
});

test('a scan in process at the last poll that completes while the API key is rotated to a new key of the same account is emitted once', async () => {
	const pollScans = (saved, creds) => poll(scanCompleted, 'wf-scan-rotation', saved, creds);
	const pending = sim.db.scans.find((s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST');
	expect(pending).toBeDefined();
	const primed = await pollScans({}, credentials);
	expect(primed.items).toEqual([]);
	await control(`/scans/${pending.id}/status`, { status: 'COMPLETED' });
	const rotated = { ...credentials, apiKey: sim.readOnlyKey };
	const next = await pollScans(primed.saved, rotated);
	expect(next.items.map((item) => String(item.json.id))).toEqual([String(pending.id)]);
	expect((await pollScans(next.saved, rotated)).items).toEqual([]);
});
