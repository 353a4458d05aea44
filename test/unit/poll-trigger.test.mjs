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
async function poll(parameters, saved = {}, mode = 'trigger', workflowId = undefined) {
	const before = sim.requests.length;
	const { result, staticData } = await runPoll({ parameters, credentials, staticData: JSON.parse(JSON.stringify(saved)), mode, workflowId });
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

	/** The trigger's state from when the mailbox held only its oldest `before` items; then the rest arrived. */
	async function savedBeforeBacklog(count, before, parameters = newMail, options = {}) {
		sim.reset({ count, seed: 5, ...options });
		const all = sim.db.mails; // newest first
		sim.db.mails = all.slice(count - before);
		sim.changed();
		const { saved } = await poll(parameters);
		sim.db.mails = all;
		sim.changed();
		return { saved, backlog: all.slice(0, count - before).map((m) => m.id), lastSeen: all[count - before] };
	}
	const arrivalsAscending = (items) => items.every((item, n) => n === 0 || Date.parse(item.json.arrival_date) >= Date.parse(items[n - 1].json.arrival_date));

	test('a backlog of 2,500 items: each poll reads at most 10 pages, every item is emitted once, each poll oldest first, mail arriving meanwhile too (review rows 2 and 17)', async () => {
		const { saved, backlog } = await savedBeforeBacklog(3_000, 500);
		const emitted = [];
		let state = saved;
		const first = await poll(newMail, state);
		expect(first.items).toHaveLength(1_000);
		expect(first.requests).toHaveLength(10);
		const arrived = [];
		for (let n = 0; n < 3; n++) arrived.push((await control('/mail', { sender_name: `During ${n}` })).mail.id);
		const polls = [first];
		for (let n = 0; n < 3; n++) polls.push(await poll(newMail, polls.at(-1).saved));
		for (const { items, requests } of polls) {
			expect(requests.length).toBeLessThanOrEqual(10);
			expect(arrivalsAscending(items)).toBe(true);
			emitted.push(...items.map((i) => i.json.id));
		}
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect([...emitted].sort()).toEqual([...backlog, ...arrived].sort());
		state = polls.at(-1).saved;
		expect(Object.values(state)[0].backlog).toBeUndefined();
		const quiet = await poll(newMail, state);
		expect(quiet.items).toHaveLength(0);
		expect(quiet.requests).toHaveLength(1);
	});

	/** Polls until the backlog is read; every poll reads at most 10 pages. */
	async function pollBacklog(saved, parameters = newMail, most = 40) {
		const emitted = [];
		let last = { saved };
		let polls = 0;
		do {
			polls++;
			last = await poll(parameters, last.saved);
			expect(last.requests.length).toBeLessThanOrEqual(10);
			emitted.push(...last.items.map((i) => i.json.id));
		} while (Object.values(last.saved)[0].backlog && polls < most);
		return { emitted, last, polls };
	}

	test('a backlog deeper than the API lists (10,500 > 10,000): read on by dividing it by filters, every item emitted once (review row 2)', async () => {
		const { saved, backlog } = await savedBeforeBacklog(11_000, 500);
		const { emitted, last, polls } = await pollBacklog(saved);
		expect(polls).toBeLessThan(40);
		expect(emitted).toHaveLength(10_500);
		expect([...emitted].sort()).toEqual([...backlog].sort());
		expect(last.requests.some((r) => r.query.status)).toBe(true); // the last polls read divisions by status
		const quiet = await poll(newMail, last.saved);
		expect(quiet.items).toHaveLength(0);
		expect(quiet.requests).toHaveLength(1);
	});

	test('mail out of reach even divided by every filter: what could be read is emitted once, the rest reported once by its dates, then polling goes on (review row 2)', async () => {
		// The trigger's filters leave only read state to divide by; every cursor is refused as too deep
		// once the backlog has begun.
		const inboxLetters = { ...newMail, filters: { status: ['inbox'], mailType: ['letter'], scanStatus: ['none'] } };
		const { saved } = await savedBeforeBacklog(11_000, 500, inboxLetters, { letterShare: 90 });
		const seenBefore = Object.values(saved)[0].newestArrival;
		const first = await poll(inboxLetters, saved);
		expect(first.items).toHaveLength(1_000);
		await control('/faults', { path: '/v1/mails', method: 'GET', cursor: true, status: 422, count: 100_000 });
		const { emitted, last } = await pollBacklog(first.saved, inboxLetters);
		const all = [...first.items.map((i) => i.json.id), ...emitted];
		expect(all.length).toBe(new Set(all).size);
		expect(last.requests.some((r) => r.query.is_read)).toBe(true); // it divided by read state first
		const state = last.saved;
		const failed = await poll(inboxLetters, state).catch((error) => error);
		expect(failed).toBeInstanceOf(Error);
		expect(failed.message).toMatch(/was not emitted: the API would not list it.*10000 items deep/);
		expect(failed.message).toContain(seenBefore); // the newest mail seen before the backlog
		// n8n keeps the state of a failed poll in memory; the next poll goes on normally
		delete Object.values(state)[0].unreachable;
		await fetch(`${sim.url}/_control/faults`, { method: 'DELETE' });
		const fresh = (await control('/mail', { sender_name: 'After', mail_type: 'letter' })).mail.id;
		const next = await poll(inboxLetters, state);
		expect(next.items.map((i) => i.json.id)).toEqual([fresh]);
		expect(next.requests).toHaveLength(1);
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

describe('every event', () => {
	test('editing Filters re-primes: mail outside the old filter is not replayed, what arrives next is emitted (issue #22, case 1)', async () => {
		const packages = { ...newMail, filters: { mailType: ['package'] } };
		const { saved } = await poll(packages);
		const edited = await poll(newMail, saved); // the Mail Type filter removed on the active trigger
		expect(edited.items).toHaveLength(0);
		const fresh = (await control('/mail', { sender_name: 'After the edit' })).mail.id;
		const next = await poll(newMail, edited.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([fresh]);
	});

	test('switching Event re-primes: Scan Completed to New Mail emits nothing, then new mail only (issue #22, case 1)', async () => {
		const { saved } = await poll({ event: 'scan-completed', options: {} });
		const switched = await poll(newMail, saved);
		expect(switched.items).toHaveLength(0);
		const fresh = (await control('/mail', { sender_name: 'After the switch' })).mail.id;
		expect((await poll(newMail, switched.saved)).items.map((i) => i.json.id)).toEqual([fresh]);
	});

	test('the same filters in another order are the same query: no re-prime', async () => {
		const a = { ...newMail, filters: { mailType: ['package', 'letter'], status: ['inbox'] } };
		const b = { ...newMail, filters: { status: ['inbox'], mailType: ['letter', 'package'] } };
		const { saved } = await poll(a);
		const fresh = (await control('/mail', { sender_name: 'Same query', mail_type: 'letter' })).mail.id;
		expect((await poll(b, saved)).items.map((i) => i.json.id)).toEqual([fresh]);
	});

	test('a poll that starts while the previous poll of the same trigger runs returns nothing and leaves the state alone (issue #22, case 4)', async () => {
		const { saved } = await poll(newMail, {}, 'trigger', 'wf-overlap');
		const fresh = (await control('/mail', { sender_name: 'Once' })).mail.id;
		sim.settings.latencyMs = 200;
		const slow = poll(newMail, saved, 'trigger', 'wf-overlap');
		await new Promise((resolve) => setTimeout(resolve, 50));
		const overlapping = await poll(newMail, saved, 'trigger', 'wf-overlap');
		const other = await poll(newMail, saved, 'trigger', 'wf-other'); // another trigger is not held up
		sim.settings.latencyMs = 0;
		expect(overlapping.items).toHaveLength(0);
		expect(overlapping.requests).toHaveLength(0);
		expect(overlapping.saved).toEqual(saved);
		expect(other.items.map((i) => i.json.id)).toEqual([fresh]);
		expect((await slow).items.map((i) => i.json.id)).toEqual([fresh]);
		// the guard is released once the poll ends
		expect((await poll(newMail, saved, 'trigger', 'wf-overlap')).items.map((i) => i.json.id)).toEqual([fresh]);
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

	const fastRetries = async (run) => {
		const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
		const saved = { ...retryPolicy };
		Object.assign(retryPolicy, { baseDelayMs: 2, maxDelayMs: 5 });
		try {
			return await run(retryPolicy.maxAttempts);
		} finally {
			Object.assign(retryPolicy, saved);
		}
	};

	test('a poll that fails while reading the scans loses nothing: the next poll emits every completion once (review row 2)', async () => {
		await fastRetries(async (attempts) => {
			const first = await poll(scanCompleted);
			const [a, b] = await pendingScans();
			await control(`/scans/${a.id}/status`, { status: 'COMPLETED' });
			await control(`/scans/${b.id}/status`, { status: 'COMPLETED' });
			await control('/faults', { path: '/v1/scans', method: 'GET', status: 503, count: attempts });
			await expect(poll(scanCompleted, first.saved)).rejects.toThrow();
			const next = await poll(scanCompleted, first.saved);
			expect(next.items.map((i) => i.json.id).sort()).toEqual([a.id, b.id].sort());
			const quiet = await poll(scanCompleted, next.saved);
			expect(quiet.items).toHaveLength(0);
		});
	});

	test('a pending scan the list no longer shows is asked for by id; while that fails it stays pending, then it is emitted once', async () => {
		await fastRetries(async (attempts) => {
			const first = await poll(scanCompleted);
			const [a] = await pendingScans();
			await control(`/scans/${a.id}/status`, { status: 'COMPLETED' });
			const listed = sim.db.scans;
			sim.db.scans = listed.filter((s) => s.id !== a.id); // GET /v1/scans stops listing it; GET /v1/scans/{id} still finds it
			sim.db.scans.find = (...args) => listed.find(...args);
			await control('/faults', { path: `/v1/scans/${a.id}`, method: 'GET', status: 503, count: attempts });
			const failed = await poll(scanCompleted, first.saved).catch((error) => error);
			expect(failed).toBeInstanceOf(Error);
			const next = await poll(scanCompleted, first.saved);
			expect(next.items.map((i) => i.json.id)).toEqual([a.id]);
			expect(next.requests.map((r) => r.path)).toContain(`/v1/scans/${a.id}`);
			const quiet = await poll(scanCompleted, next.saved);
			expect(quiet.items).toHaveLength(0);
			expect(quiet.requests.map((r) => r.path)).not.toContain(`/v1/scans/${a.id}`);
		});
	});

	test('a scan requested and completed between two polls is emitted once (review row 2)', async () => {
		const first = await poll(scanCompleted);
		const mail = (await control('/mail', { sender_name: 'Insurer' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const next = await poll(scanCompleted, first.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([scan.id]);
		const again = await poll(scanCompleted, next.saved);
		expect(again.items).toHaveLength(0);
	});

	test('after a restart from the last save (n8n saves only polls that emit), scans that became pending and completed meanwhile are emitted once (review row 2)', async () => {
		const saved = (await poll(scanCompleted)).saved; // what the database holds
		const [old] = await pendingScans();
		const mail = (await control('/mail', { sender_name: 'Court' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		const unsaved = await poll(scanCompleted, saved); // sees the new scan pending, emits nothing: not saved
		expect(unsaved.items).toHaveLength(0);
		// n8n restarts; meanwhile both scans complete; the poll starts again from the saved state
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${old.id}/status`, { status: 'COMPLETED' });
		const restarted = await poll(scanCompleted, saved);
		expect(restarted.items.map((i) => i.json.id).sort()).toEqual([scan.id, old.id].sort());
		const again = await poll(scanCompleted, restarted.saved);
		expect(again.items).toHaveLength(0);
	});

	test('nothing in process and nothing new: one request per poll', async () => {
		for (const scan of sim.db.scans) if (scan.status === 'IN_PROCESS' || scan.status === 'RESTORING') await control(`/scans/${scan.id}/status`, { status: 'CANCELLED' });
		const first = await poll(scanCompleted);
		const quiet = await poll(scanCompleted, first.saved);
		expect(quiet.items).toHaveLength(0);
		expect(quiet.requests.map((r) => r.path)).toEqual(['/v1/scans']);
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
