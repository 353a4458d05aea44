import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runPoll } from '../harness/n8n-core-harness.mjs';

let sim;
let credentials;
beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 400, seed: 5 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
beforeEach(() => sim.reset({ count: 400, seed: 5 }));

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
/** One poll as n8n runs it; static data goes through JSON as it would through the database. */
async function poll(parameters, saved = {}, mode = 'trigger') {
	const before = sim.requests.length;
	const { result, staticData } = await runPoll({ parameters, credentials, staticData: JSON.parse(JSON.stringify(saved)), mode });
	return { items: result?.[0] ?? [], saved: JSON.parse(JSON.stringify(staticData)), requests: sim.requests.slice(before) };
}
const newMail = { event: 'new-mail', filters: {}, options: {} };

describe('new mail', () => {
	test('the first activation records where the mailbox stands and emits nothing', async () => {
		const first = await poll(newMail);
		expect(first.items).toHaveLength(0);
		expect(first.requests).toHaveLength(1);
		expect(first.requests[0].query).toMatchObject({ sort: ['newest'], limit: ['100'] });
	});

	test('nothing new: exactly one request, nothing emitted', async () => {
		const { saved } = await poll(newMail);
		const second = await poll(newMail, saved);
		expect(second.items).toHaveLength(0);
		expect(second.requests).toHaveLength(1);
	});

	test('250 new items across pages: all emitted once, oldest first, then nothing', async () => {
		const { saved } = await poll(newMail);
		const added = [];
		for (let n = 0; n < 250; n++) added.push((await control('/mail', { sender_name: `Sender ${n}` })).mail.id);
		const next = await poll(newMail, saved);
		expect(next.items.map((i) => i.json.id)).toEqual(added);
		expect(next.items.every((i) => i.json.event === 'new-mail')).toBe(true);
		expect(next.requests).toHaveLength(3);
		expect(new Set(next.requests.map((r) => r.query.cursor?.[0] ?? '')).size).toBe(3);
		const again = await poll(newMail, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(1);
	});

	test('a restart from saved state emits only what arrived meanwhile', async () => {
		const { saved } = await poll(newMail);
		const a = (await control('/mail', { sender_name: 'A' })).mail.id;
		const afterA = await poll(newMail, saved);
		const b = (await control('/mail', { sender_name: 'B' })).mail.id;
		const restarted = await poll(newMail, afterA.saved); // the saved state is all that survives
		expect(afterA.items.map((i) => i.json.id)).toEqual([a]);
		expect(restarted.items.map((i) => i.json.id)).toEqual([b]);
	});

	test('mail logged late with an earlier arrival date is emitted once, found by the change in total_count', async () => {
		const { saved } = await poll(newMail);
		const days = (n) => new Date(Date.now() - n * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
		const fresh = (await control('/mail', { sender_name: 'On time' })).mail.id;
		const late = (await control('/mail', { sender_name: 'Logged late', arrival_date: days(40) })).mail.id;
		const next = await poll(newMail, saved);
		// the late one is older: emitted first (oldest first), then the new one at the top
		expect(next.items.map((i) => i.json.id)).toEqual([late, fresh]);
		expect(next.requests).toHaveLength(1); // both within the first page
		const again = await poll(newMail, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(1);
		// only a late one, nothing at the top
		const alone = (await control('/mail', { sender_name: 'Logged late too', arrival_date: days(60) })).mail.id;
		const third = await poll(newMail, again.saved);
		expect(third.items.map((i) => i.json.id)).toEqual([alone]);
	});

	test('a late item on a later page: the walk goes on below the first seen item, within what is remembered', async () => {
		// 150 on-time items first, so that 250 items of the list are remembered
		const { saved } = await poll(newMail);
		for (let n = 0; n < 150; n++) await control('/mail', { sender_name: `Batch ${n}` });
		const filled = await poll(newMail, saved);
		expect(filled.items).toHaveLength(150);
		const days = (n) => new Date(Date.now() - n * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
		const late = (await control('/mail', { sender_name: 'Very late', arrival_date: days(80) })).mail.id;
		const position = (await (await fetch(`${sim.url}/_control/query?sort=newest`)).json()).indexOf(late);
		expect(position).toBeGreaterThan(150);
		expect(position).toBeLessThan(250);
		const next = await poll(newMail, filled.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([late]);
		expect(next.requests).toHaveLength(Math.floor(position / 100) + 1);
		expect((await poll(newMail, next.saved)).items).toHaveLength(0);
	});

	test('filters apply (only packages)', async () => {
		const parameters = { ...newMail, filters: { mailType: ['package'] } };
		const { saved } = await poll(parameters);
		await control('/mail', { sender_name: 'Letter sender' });
		const pkg = (await control('/mail', { sender_name: 'Shop', mail_type: 'package' })).mail.id;
		const next = await poll(parameters, saved);
		expect(next.items.map((i) => i.json.id)).toEqual([pkg]);
		expect(next.requests[0].query.mail_type).toEqual(['package']);
	});

	test('a manual test run shows the latest items without needing state', async () => {
		const run = await poll(newMail, {}, 'manual');
		expect(run.items).toHaveLength(5);
		expect(run.requests).toHaveLength(1);
	});

	test('Download File attaches the envelope photo', async () => {
		const parameters = { ...newMail, options: { downloadFile: true } };
		const { saved } = await poll(parameters);
		await control('/mail', { sender_name: 'Photo' });
		const next = await poll(parameters, saved);
		expect(next.items[0].binary.data).toMatchObject({ mimeType: 'image/jpeg' });
	});
});

describe('scan completed', () => {
	const scanCompleted = { event: 'scan-completed', options: {} };
	const pendingScans = async () => (await fetch(`${sim.url}/_control/state`).then((r) => r.json())).scans.filter((s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST');

	test('completions out of arrival order are each emitted once; other status changes are not', async () => {
		const first = await poll(scanCompleted);
		expect(first.items).toHaveLength(0);
		const pending = await pendingScans();
		expect(pending.length).toBeGreaterThanOrEqual(3);
		// the oldest pending scan completes first, then a newer one; another is cancelled
		await control(`/scans/${pending.at(-1).id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${pending[0].id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${pending[1].id}/status`, { status: 'CANCELLED' });
		const next = await poll(scanCompleted, first.saved);
		expect(next.items.map((i) => i.json.id).sort()).toEqual([pending.at(-1).id, pending[0].id].sort());
		expect(next.items.every((i) => i.json.status === 'COMPLETED' && i.json.event === 'scan-completed')).toBe(true);
		const again = await poll(scanCompleted, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(1);
	});

	test('a new scan requested after activation is followed until it completes; Download File attaches the PDF', async () => {
		const parameters = { ...scanCompleted, options: { downloadFile: true } };
		const first = await poll(parameters);
		const mail = (await control('/mail', { sender_name: 'Bank' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		const seenPending = await poll(parameters, first.saved);
		expect(seenPending.items).toHaveLength(0);
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const done = await poll(parameters, seenPending.saved);
		expect(done.items.map((i) => i.json.id)).toEqual([scan.id]);
		expect(done.items[0].binary.data).toMatchObject({ mimeType: 'application/pdf', fileName: `${scan.id}.pdf` });
	});

	test('a completed scan whose status cannot be read this poll is emitted by the next one, never lost (review row 2)', async () => {
		const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
		const saved = { ...retryPolicy };
		Object.assign(retryPolicy, { baseDelayMs: 2, maxDelayMs: 5 });
		try {
			const first = await poll(scanCompleted);
			const [a, b] = await pendingScans();
			await control(`/scans/${a.id}/status`, { status: 'COMPLETED' });
			await control(`/scans/${b.id}/status`, { status: 'COMPLETED' });
			await control('/faults', { path: `/v1/scans/${a.id}`, method: 'GET', status: 503, count: retryPolicy.maxAttempts });
			const next = await poll(scanCompleted, first.saved);
			expect(next.items.map((i) => i.json.id)).toEqual([b.id]);
			expect(Object.keys(Object.values(next.saved)[0].pending)).toContain(a.id); // the node's static data
			const after = await poll(scanCompleted, next.saved);
			expect(after.items.map((i) => i.json.id)).toEqual([a.id]);
			const quiet = await poll(scanCompleted, after.saved);
			expect(quiet.items).toHaveLength(0);
		} finally {
			Object.assign(retryPolicy, saved);
		}
	});

	test('open completed only reports unboxing requests', async () => {
		const openCompleted = { event: 'open-completed', options: {} };
		const first = await poll(openCompleted);
		const mail = (await control('/mail', { sender_name: 'Shop', mail_type: 'package' })).mail;
		const open = await control(`/mails/${mail.id}/scan`, { type: 'open' });
		const scan = await control(`/mails/${(await control('/mail', {})).mail.id}/scan`, { type: 'scan' });
		const mid = await poll(openCompleted, first.saved);
		await control(`/scans/${open.id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const done = await poll(openCompleted, mid.saved);
		expect(done.items.map((i) => [i.json.id, i.json.type])).toEqual([[open.id, 'UNBOXING_REQUEST']]);
	});
});
