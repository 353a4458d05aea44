import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { dist, runPoll } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const fixture = await simulatorForFile({ count: 400, seed: 5 });
const { sim, credentials, control, arrive } = fixture;
const poll = (parameters, saved, mode = 'trigger', workflowId = undefined) =>
	fixture.poll(parameters, saved, { mode, workflowId });
const newMail = { event: 'new-mail', filters: {}, options: {} };

describe('new mail', () => {
	test('the first activation records where the mailbox stands and emits nothing', async () => {
		const first = await poll(newMail);
		expect(first.items).toHaveLength(0);
		// the account, recorded so that a later key rotation is told from another account; then the newest page
		expect(first.requests.map((r) => r.path)).toEqual(['/v1/account', '/v1/mails']);
		expect(first.requests[1].query).toMatchObject({ sort: ['newest'], limit: ['100'] });
	});

	test('a fingerprint saved in the older string form primes: what arrived before is not emitted, then new mail is', async () => {
		const { saved } = await poll(newMail);
		const [key] = Object.keys(saved).filter((k) => saved[k].fingerprint);
		const keyDigest = createHash('sha256').update(sim.apiKey).digest('hex').slice(0, 16);
		const account = `1|${sim.url.toLowerCase()}|${keyDigest}`;
		const older = JSON.stringify(['new-mail', { sort: 'newest' }, account]);
		await control('/mail', { sender_name: 'Before The Upgrade' });
		const primed = await poll(newMail, { ...saved, [key]: { ...saved[key], fingerprint: older } });
		expect(primed.items).toHaveLength(0);
		expect(primed.saved[key].fingerprint).toMatchObject({ event: 'new-mail' });
		const later = (await control('/mail', { sender_name: 'After The Upgrade' })).mail.id;
		const next = await poll(newMail, primed.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([later]);
	});

	test('a fingerprint of any other shape primes without an error', async () => {
		const { saved } = await poll(newMail);
		const [key] = Object.keys(saved).filter((k) => saved[k].fingerprint);
		await control('/mail', { sender_name: 'Before' });
		for (const fingerprint of [42, null, [], 'new-mail', { event: 'new-mail', account: 'x' }]) {
			const primed = await poll(newMail, { ...saved, [key]: { ...saved[key], fingerprint } });
			expect(primed.items).toHaveLength(0);
			expect(primed.saved[key].fingerprint).toEqual(saved[key].fingerprint);
		}
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
		for (let n = 0; n < 250; n++) added.push(arrive({ sender_name: `Sender ${n}` }).id);
		const next = await poll(newMail, saved);
		expect(next.items.map((i) => i.json.id)).toEqual(added);
		expect(next.items.every((i) => i.json.event === 'new-mail')).toBe(true);
		expect(next.requests).toHaveLength(3);
		expect(new Set(next.requests.map((r) => r.query.cursor?.[0] ?? '')).size).toBe(3);
		// all 250 arrived within 72 h of each other: the next poll reads them down to the floor
		const again = await poll(newMail, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(3);
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

	const hoursAgo = (n) =>
		new Date(Date.now() - n * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
	const stateOf = (saved) => Object.values(saved)[0];

	test('mail logged late within 72 h of the newest recorded mail is emitted once, oldest first; older late mail is not (limit 1)', async () => {
		const { saved } = await poll(newMail);
		const fresh = (await control('/mail', { sender_name: 'On time' })).mail.id;
		const late = (
			await control('/mail', { sender_name: 'Logged late', arrival_date: hoursAgo(60) })
		).mail.id;
		const tooLate = (
			await control('/mail', { sender_name: 'Logged too late', arrival_date: hoursAgo(24 * 40) })
		).mail.id;
		const next = await poll(newMail, saved);
		expect(next.items.map((i) => i.json.id)).toEqual([late, fresh]);
		expect(next.items.map((i) => i.json.id)).not.toContain(tooLate);
		const again = await poll(newMail, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(1);
		// a late one alone, nothing at the top
		const alone = (
			await control('/mail', { sender_name: 'Logged late too', arrival_date: hoursAgo(70) })
		).mail.id;
		expect((await poll(newMail, again.saved)).items.map((i) => i.json.id)).toEqual([alone]);
	});

	test('a poll reads down to the floor: late mail on a later page is found, and each poll costs the pages above the floor', async () => {
		const { saved } = await poll(newMail);
		for (let n = 0; n < 150; n++) arrive({ sender_name: `Batch ${n}` });
		const filled = await poll(newMail, saved);
		expect(filled.items).toHaveLength(150);
		const late = (await control('/mail', { sender_name: 'Late, deep', arrival_date: hoursAgo(71) }))
			.mail.id;
		const position = (await (await fetch(`${sim.url}/_control/query?sort=newest`)).json()).indexOf(
			late,
		);
		expect(position).toBeGreaterThanOrEqual(150);
		const next = await poll(newMail, filled.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([late]);
		expect(next.requests).toHaveLength(Math.floor(position / 100) + 1);
		expect(new Set(next.requests.map((r) => r.query.cursor?.[0] ?? '')).size).toBe(
			next.requests.length,
		);
		expect((await poll(newMail, next.saved)).items).toHaveLength(0);
	});

	test('the state: the floor never goes down, recorded ids stay above it and number at most 2,000 (1,000 remembered, lagging one poll, + 1,000 emitted)', async () => {
		const { saved } = await poll(newMail);
		let state = saved;
		let floor = stateOf(state).floor;
		for (let round = 0; round < 3; round++) {
			for (let n = 0; n < 700; n++) arrive({ sender_name: `Round ${round} #${n}` });
			let emitted = 0;
			do {
				const next = await poll(newMail, state);
				emitted = next.items.length;
				state = next.saved;
				const { floor: now, recorded } = stateOf(state);
				expect(now[0] > floor[0] || (now[0] === floor[0] && now[1] >= floor[1])).toBe(true);
				expect(Object.keys(recorded).length).toBeLessThanOrEqual(2_000);
				for (const [id, arrival] of Object.entries(recorded))
					expect(arrival > now[0] || (arrival === now[0] && Number(id) > now[1])).toBe(true);
				floor = now;
			} while (emitted > 0);
		}
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
		return { saved, backlog: all.slice(0, count - before).map((m) => m.id) };
	}
	const arrivalsAscending = (items) =>
		items.every(
			(item, n) =>
				n === 0 || Date.parse(item.json.arrival_date) >= Date.parse(items[n - 1].json.arrival_date),
		);

	/** Polls until a poll emits nothing; `between` runs after each poll with its items. */
	async function pollUntilQuiet(saved, parameters = newMail, between = async () => {}, most = 40) {
		const emitted = [];
		const polls = [];
		let last = { saved };
		do {
			last = await poll(parameters, last.saved);
			polls.push(last);
			emitted.push(...last.items.map((i) => i.json.id));
			await between(last.items);
		} while (last.items.length > 0 && polls.length < most);
		return { emitted, polls, last };
	}

	test('a backlog of 2,500 items: at most 1,000 a poll, oldest first, every item once, mail arriving meanwhile too', async () => {
		const { saved, backlog } = await savedBeforeBacklog(3_000, 500);
		const arrived = [];
		const { emitted, polls, last } = await pollUntilQuiet(saved, newMail, async () => {
			if (arrived.length < 3)
				arrived.push((await control('/mail', { sender_name: `During ${arrived.length}` })).mail.id);
		});
		expect(polls.map((p) => p.items.length).slice(0, 3)).toEqual([1_000, 1_000, 500 + 2]); // the mail that arrived after the first two polls is the newest: it waits for the older backlog
		expect(polls.every((p) => arrivalsAscending(p.items))).toBe(true);
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect([...emitted].sort()).toEqual([...backlog, ...arrived].sort());
		expect(last.requests).toHaveLength(1);
	});

	test('a backlog read while the workflow archives what it receives, in the middle of the next poll too: nothing lost, nothing twice', async () => {
		const inbox = { ...newMail, filters: { status: ['inbox'] } };
		const { saved } = await savedBeforeBacklog(3_000, 500, inbox);
		const backlog = sim.db.mails
			.slice(0, 2_500)
			.filter((m) => m.mail_status === 'inbox')
			.map((m) => m.id);
		expect(backlog.length).toBeGreaterThan(1_000);
		const toArchive = [];
		// each request of a poll first archives up to 40 items the previous polls emitted: the list moves under the cursor
		sim.settings.onRequest = async (record) => {
			if (record.path !== '/v1/mails') return;
			for (const id of toArchive.splice(0, 40)) {
				const mail = sim.db.mails.find((m) => m.id === id);
				if (mail.mail_status === 'inbox') mail.mail_status = 'archived';
			}
			sim.changed();
		};
		const { emitted } = await pollUntilQuiet(saved, inbox, async (items) =>
			toArchive.push(...items.map((i) => i.json.id)),
		);
		sim.settings.onRequest = undefined;
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect([...emitted].sort()).toEqual([...backlog].sort());
	});

	test('a backlog deeper than the API lists (10,500 > 10,000): each poll reads it divided by filters, every item emitted once', async () => {
		const { saved, backlog } = await savedBeforeBacklog(11_000, 500);
		const { emitted, polls } = await pollUntilQuiet(saved);
		expect(emitted).toHaveLength(10_500);
		expect([...emitted].sort()).toEqual([...backlog].sort());
		expect(polls[0].requests.some((r) => r.query.status)).toBe(true); // divided by status
		expect(polls.at(-1).requests).toHaveLength(1);
	});

	test('mail out of reach even divided by every filter: one failed poll names its arrival dates, then polling goes on without repeating it', async () => {
		// The trigger's filters leave only read state to divide by, and every cursor is refused.
		const inboxLetters = {
			...newMail,
			filters: { status: ['inbox'], mailType: ['letter'], scanStatus: ['none'] },
		};
		const { saved } = await savedBeforeBacklog(3_000, 500, inboxLetters, { letterShare: 90 });
		const floor = stateOf(saved).floor;
		await control('/faults', {
			path: '/v1/mails',
			method: 'GET',
			cursor: true,
			status: 422,
			count: 100_000,
		});
		// n8n keeps a failed poll's state in memory (it saves none): the same object goes to the next poll
		const state = JSON.parse(JSON.stringify(saved));
		const failed = await runPoll({
			parameters: inboxLetters,
			credentials,
			staticData: state,
		}).catch((error) => error);
		expect(failed).toBeInstanceOf(Error);
		expect(failed.message).toMatch(
			/may not have been emitted: the API would not list it.*10000 items deep/,
		);
		expect(failed.message).toContain(new Date(floor[0]).toISOString());
		expect(sim.requests.some((r) => r.query.is_read)).toBe(true); // it divided by read state
		// the failed poll leaves the floor alone, so that the next poll emits what the parts read in full listed
		expect(stateOf(state).floor).toEqual(floor);
		const unreached = stateOf(state).reported;
		expect(failed.message).toContain(new Date(unreached[0]).toISOString());
		const { emitted, polls, last } = await pollUntilQuiet(state, inboxLetters);
		// no poll fails again: the first reads a page, is refused the cursor and reads both read states
		// (a page each, the cursor refused), then raises the floor past what was reported
		expect(polls.map((p) => p.requests.length)).toEqual([6, 1]);
		const raised = stateOf(last.saved).floor;
		expect(
			raised[0] > unreached[0] || (raised[0] === unreached[0] && raised[1] >= unreached[1]),
		).toBe(true);
		expect(stateOf(last.saved).reported).toBeUndefined();
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect(emitted.length).toBeGreaterThan(0);
		// every part was out of reach below its first page: what those pages listed, nothing below
		const firstPage = (isRead) =>
			sim.db.mails
				.filter(
					(m) =>
						m.mail_status === 'inbox' &&
						m.mail_type === 'letter' &&
						!m.scan &&
						m.is_read === isRead &&
						Date.parse(m.arrival_date) > floor[0],
				)
				.sort(
					(a, b) =>
						Date.parse(b.arrival_date) - Date.parse(a.arrival_date) || Number(b.id) - Number(a.id),
				)
				.slice(0, 100)
				.map((m) => m.id);
		expect([...emitted].sort()).toEqual([...firstPage(true), ...firstPage(false)].sort());
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

	test('Put Output File in Field puts the downloaded file in the field it names, and only there', async () => {
		const parameters = {
			...newMail,
			options: { downloadFile: true, binaryPropertyName: 'envelope' },
		};
		const { saved } = await poll(parameters);
		await control('/mail', { sender_name: 'Photo' });
		const next = await poll(parameters, saved);
		expect(Object.keys(next.items[0].binary)).toEqual(['envelope']);
		expect(next.items[0].binary.envelope).toMatchObject({ mimeType: 'image/jpeg' });
	});
});

describe('every event', () => {
	test('editing Filters re-primes: mail outside the old filter is not replayed, what arrives next is emitted', async () => {
		const packages = { ...newMail, filters: { mailType: ['package'] } };
		const { saved } = await poll(packages);
		const edited = await poll(newMail, saved); // the Mail Type filter removed on the active trigger
		expect(edited.items).toHaveLength(0);
		const fresh = (await control('/mail', { sender_name: 'After the edit' })).mail.id;
		const next = await poll(newMail, edited.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([fresh]);
	});

	test('switching Event re-primes: Scan Completed to New Mail emits nothing, then new mail only', async () => {
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
		const fresh = (await control('/mail', { sender_name: 'Same query', mail_type: 'letter' })).mail
			.id;
		expect((await poll(b, saved)).items.map((i) => i.json.id)).toEqual([fresh]);
	});

	test('a poll that starts while the previous poll of the same trigger runs returns nothing and leaves the state alone', async () => {
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
		expect(
			(await poll(newMail, saved, 'trigger', 'wf-overlap')).items.map((i) => i.json.id),
		).toEqual([fresh]);
	});
});

describe('scan completed', () => {
	const scanCompleted = { event: 'scan-completed', options: {} };
	const pendingScans = async () =>
		(await fetch(`${sim.url}/_control/state`).then((r) => r.json())).scans.filter(
			(s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST',
		);

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
		expect(next.items.map((i) => i.json.id).sort()).toEqual(
			[pending.at(-1).id, pending[0].id].sort(),
		);
		expect(
			next.items.every((i) => i.json.status === 'COMPLETED' && i.json.event === 'scan-completed'),
		).toBe(true);
		const again = await poll(scanCompleted, next.saved);
		expect(again.items).toHaveLength(0);
		expect(again.requests).toHaveLength(2);
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
		expect(done.items[0].binary.data).toMatchObject({
			mimeType: 'application/pdf',
			fileName: `${scan.id}.pdf`,
		});
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

	test('a poll that fails while reading the scans loses nothing: the next poll emits every completion once', async () => {
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
			await control('/faults', {
				path: `/v1/scans/${a.id}`,
				method: 'GET',
				status: 503,
				count: attempts,
			});
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

	test('a scan requested and completed between two polls is emitted once', async () => {
		const first = await poll(scanCompleted);
		const mail = (await control('/mail', { sender_name: 'Insurer' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const next = await poll(scanCompleted, first.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([scan.id]);
		const again = await poll(scanCompleted, next.saved);
		expect(again.items).toHaveLength(0);
	});

	test('after a restart from the last save (n8n saves only polls that emit), scans that became pending and completed meanwhile are emitted once', async () => {
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

	test('nothing in process and nothing new: two requests per poll, each with an explicit sort and type', async () => {
		for (const scan of sim.db.scans)
			if (scan.status === 'IN_PROCESS' || scan.status === 'RESTORING')
				await control(`/scans/${scan.id}/status`, { status: 'CANCELLED' });
		const first = await poll(scanCompleted);
		const quiet = await poll(scanCompleted, first.saved);
		expect(quiet.items).toHaveLength(0);
		expect(quiet.requests.map((r) => [r.path, r.query.sort, r.query.type, r.query.status])).toEqual(
			[
				['/v1/scans', ['newest'], ['scan'], ['in_process', 'restoring']],
				['/v1/scans', ['newest'], ['scan'], undefined],
			],
		);
	});

	test('a scan requested while the first activation primes is emitted when it completes', async () => {
		const mail = (await control('/mail', { sender_name: 'During priming' })).mail;
		let scan;
		// requested between the priming's two requests, and another one right after the priming
		sim.settings.onRequest = async (record) => {
			if (record.path === '/v1/scans' && record.query.status && !scan)
				scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		};
		const first = await poll(scanCompleted);
		sim.settings.onRequest = undefined;
		const later = await control(`/mails/${(await control('/mail', {})).mail.id}/scan`, {
			type: 'scan',
		});
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${later.id}/status`, { status: 'COMPLETED' });
		const next = await poll(scanCompleted, first.saved);
		expect(next.items.map((i) => i.json.id).sort()).toEqual([scan.id, later.id].sort());
	});

	test('a restored scan (completed, deleted, seen restoring, completed again) emits its second completion once', async () => {
		const mail = (await control('/mail', { sender_name: 'Restored' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		const first = await poll(scanCompleted);
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const done = await poll(scanCompleted, first.saved);
		expect(done.items.map((i) => i.json.id)).toEqual([scan.id]);
		await control(`/scans/${scan.id}/status`, { status: 'DELETED' });
		const deleted = await poll(scanCompleted, done.saved);
		await control(`/scans/${scan.id}/status`, { status: 'RESTORING' });
		const restoring = await poll(scanCompleted, deleted.saved);
		expect(restoring.items).toHaveLength(0);
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		sim.db.scans.find((s) => s.id === scan.id).status_updated_at = new Date(Date.now() + 60_000)
			.toISOString()
			.replace(/\.\d{3}Z$/, 'Z');
		sim.changed();
		const again = await poll(scanCompleted, restoring.saved);
		expect(again.items.map((i) => i.json.id)).toEqual([scan.id]);
		expect(again.items[0].json.status_updated_at).not.toBe(done.items[0].json.status_updated_at);
		expect((await poll(scanCompleted, again.saved)).items).toHaveLength(0);
	});

	test('a scan restored long after it was requested, deep in the list, is found restoring and its completion emitted once', async () => {
		const first = await poll(scanCompleted);
		const old = sim.db.scans
			.filter((s) => s.type === 'SCAN_REQUEST' && s.status === 'COMPLETED')
			.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))[0];
		await control(`/scans/${old.id}/status`, { status: 'DELETED' });
		await control(`/scans/${old.id}/status`, { status: 'RESTORING' });
		const seen = await poll(scanCompleted, first.saved);
		expect(seen.items).toHaveLength(0);
		await control(`/scans/${old.id}/status`, { status: 'COMPLETED' });
		const next = await poll(scanCompleted, seen.saved);
		expect(next.items.map((i) => i.json.id)).toEqual([old.id]);
		expect(next.requests.map((r) => r.path)).toContain(`/v1/scans/${old.id}`); // deeper than the newest scans: asked for by id
		expect((await poll(scanCompleted, next.saved)).items).toHaveLength(0);
	});

	test('open completed only reports unboxing requests', async () => {
		const openCompleted = { event: 'open-completed', options: {} };
		const first = await poll(openCompleted);
		const mail = (await control('/mail', { sender_name: 'Shop', mail_type: 'package' })).mail;
		const open = await control(`/mails/${mail.id}/scan`, { type: 'open' });
		const scan = await control(`/mails/${(await control('/mail', {})).mail.id}/scan`, {
			type: 'scan',
		});
		const mid = await poll(openCompleted, first.saved);
		await control(`/scans/${open.id}/status`, { status: 'COMPLETED' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const done = await poll(openCompleted, mid.saved);
		expect(done.items.map((i) => [i.json.id, i.json.type])).toEqual([
			[open.id, 'UNBOXING_REQUEST'],
		]);
	});
});

describe('New Mail: what a poll may not miss', () => {
	// `arrival_date` is nullable (API spec, mail item fields). The trigger gives such an
	// item the order key [0, id] and stops reading the list at the first item at or below the floor
	// ("newest first: the rest is at or below the floor too"). An item without an arrival date that the
	// API lists before newer mail therefore ends every poll's read early: mail that arrived after it and
	// matches the query would never be emitted, which no stated limit allows.
	test('an item without arrival_date listed first does not hide the new mail listed after it', async () => {
		const { saved } = await poll(newMail);
		const a = (await control('/mail', { sender_name: 'A' })).mail.id;
		const b = (await control('/mail', { sender_name: 'B' })).mail.id;
		const undated = (await control('/mail', { sender_name: 'Undated' })).mail.id;
		sim.db.mails.find((m) => m.id === undated).arrival_date = null; // nullable in the API
		sim.changed?.();
		const listed = await fetch(`${sim.url}/v1/mails?sort=newest&limit=3`, {
			headers: { 'x-api-key': sim.apiKey, Authorization: `Bearer ${sim.apiKey}` },
		})
			.then((r) => r.json())
			.catch(() => undefined);
		const next = await poll(newMail, saved);
		const again = await poll(newMail, next.saved);
		const emitted = [...next.items, ...again.items].map((i) => i.json.id);
		// A and B arrived after the priming, match the (empty) filters, are within every limit.
		expect({ emitted, listedFirst: listed?.data?.map((m) => m.id) }).toMatchObject({
			emitted: expect.arrayContaining([a, b]),
		});
	});

	// A stated limit ("an item that moved while a poll read the list may be missed by that poll;
	// the next poll emits it if it still matches"). When the poll that missed it emits 1,000 items all
	// newer than it, the floor (the 1,000th newest recorded item) rises above the missed item: the next
	// poll must still emit it while it matches. Here: 1,001 new inbox items; while the poll reads its
	// 11th page one item it already read leaves the inbox, so the oldest new item moves from position
	// 1,000 to 999 under the offset cursor and is skipped; it stays in the inbox.
	const inbox = { event: 'new-mail', filters: { status: ['inbox'] }, options: {} };

	test('an item missed because the list moved during the read is emitted by a later poll while it still matches', async () => {
		const { saved } = await poll(inbox);
		const added = [];
		for (let n = 0; n < 1_001; n++)
			added.push((await control('/mail', { sender_name: `Backlog ${n}` })).mail.id);
		const oldest = added[0];
		expect(sim.db.mails.find((m) => m.id === oldest).mail_status).toBe('inbox');
		let requests = 0;
		sim.settings.onRequest = async (record) => {
			if (record.path !== '/v1/mails' || ++requests !== 11) return;
			sim.db.mails.find((m) => m.id === added.at(-1)).mail_status = 'archived'; // read on page 1 already
			sim.changed();
		};
		const first = await poll(inbox, saved);
		sim.settings.onRequest = undefined;
		const emitted = first.items.map((i) => i.json.id);
		let state = first.saved;
		for (let n = 0; n < 3; n++) {
			const next = await poll(inbox, state);
			emitted.push(...next.items.map((i) => i.json.id));
			state = next.saved;
		}
		expect(sim.db.mails.find((m) => m.id === oldest).mail_status).toBe('inbox'); // still matches
		expect(emitted).toHaveLength(new Set(emitted).size);
		expect(emitted).toContain(oldest);
	});

	// A stated limit: "mail still out of reach makes one poll fail with an error naming its
	// arrival dates; that poll raises the floor past it". The floor is raised past the lowest key of
	// the part that could not be listed, so mail of *another* part that the same poll listed in full
	// (within reach, its list ended) and that is older than that key is dropped too: it was never out
	// of reach and still matches: it must be emitted.
	const inboxLetters = {
		event: 'new-mail',
		filters: { status: ['inbox'], mailType: ['letter'], scanStatus: ['none'] },
		options: {},
	};

	test('mail listed in full by a reachable part is emitted even when another part is out of reach', async () => {
		const state = {};
		await runPoll({ parameters: inboxLetters, credentials, staticData: state }); // priming
		const readLetters = [];
		for (let n = 0; n < 30; n++) {
			const id = (await control('/mail', { sender_name: `Read ${n}`, mail_type: 'letter' })).mail
				.id;
			sim.db.mails.find((m) => m.id === id).is_read = true;
			readLetters.push(id);
		}
		for (let n = 0; n < 150; n++)
			await control('/mail', { sender_name: `Unread ${n}`, mail_type: 'letter' });
		sim.changed();
		expect(
			sim.db.mails
				.filter((m) => readLetters.includes(m.id))
				.every((m) => m.mail_status === 'inbox' && !m.scan),
		).toBe(true);
		await control('/faults', {
			path: '/v1/mails',
			method: 'GET',
			cursor: true,
			status: 422,
			count: 100_000,
		});
		const failed = await runPoll({
			parameters: inboxLetters,
			credentials,
			staticData: state,
		}).catch((error) => error);
		expect(failed).toBeInstanceOf(Error); // the unread part is out of reach past its first page: reported
		const emitted = [];
		for (let n = 0; n < 3; n++) {
			const { result } = await runPoll({
				parameters: inboxLetters,
				credentials,
				staticData: state,
			});
			emitted.push(...(result?.[0] ?? []).map((i) => i.json.id));
		}
		// the 30 read letters were listed completely (one page, the list's end) by the is_read=true part
		expect(readLetters.filter((id) => !emitted.includes(id))).toEqual([]);
	});
});
