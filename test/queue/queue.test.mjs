// Queue mode end to end: the built package in real n8n (the runtime VMB_N8N names) with Postgres,
// Redis, one main, two workers and two webhook processes (the project's shared cluster, cluster.mjs),
// against the simulator.
// Deliveries are signed here (test/support/webhooks.mjs), so a copy is byte for byte the same.
// The figures the closing notes quote are printed as "[queue] …" lines.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { restClient, waitFor } from '../e2e/real-n8n.mjs';
import {
	CREDENTIAL_ID,
	credentialFor,
	operationsWorkflow,
	pollWorkflows,
	readOnlyCredentialFor,
	triggerWorkflow,
} from '../e2e/workflows.mjs';
import { exampleWorkflows } from '../e2e/examples.mjs';
import { payloads, sign } from '../support/webhooks.mjs';
import { sharedCluster, WORKERS } from './cluster.mjs';

const MAILS = 10_000;
const TRIGGER = 'VmbQueueTrigger1';
const report = (line) => process.stdout.write(`[queue] ${line}\n`);
let sim;
let cluster;
let rest;
const trigger = triggerWorkflow({ id: TRIGGER, name: 'Queue: trigger → Ran' });
// A node after the trigger: it runs only for items the trigger passes on.
trigger.workflow.nodes.push({
	id: 'b3c4d5e6-0000-4000-8000-000000000001',
	name: 'Ran',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [300, 0],
	parameters: {},
});
trigger.workflow.connections['Virtual Mailbox Trigger'] = {
	main: [[{ node: 'Ran', type: 'main', index: 0 }]],
};
const filing = exampleWorkflows().find((e) => e.file === 'file-new-mail-by-sender.json');
const [pollNewMail, pollScans] = pollWorkflows();
const polled = {
	first: undefined,
	second: undefined,
	stoppedAt: undefined,
	restartedAt: undefined,
	scan: undefined,
	scanRequestedAt: undefined,
};

const data = () => ({
	credentials: [credentialFor(sim), readOnlyCredentialFor(sim)],
	workflows: [trigger.workflow, operationsWorkflow(), filing.workflow, pollNewMail, pollScans],
	waitForWebhooks: [trigger.path, filing.path, 'op/account-get'],
});

beforeAll(async () => {
	sim = await startSimulator({ count: MAILS, seed: 17 });
	cluster = await sharedCluster();
	await cluster.load(data());
	rest = await restClient(cluster.main.base);
	// The poll test's first package arrives once the first poll has recorded where things stand.
	waitFor(async () => pollRequests().length > 0, 150_000)
		.then(
			async () =>
				(polled.first = (
					await control('/mail', { sender_name: 'Queue Poll Shop', mail_type: 'package' })
				).mail),
		)
		.catch(() => {});
	// The scan poll's first poll (at activation, saved by n8n) records where things stand; then a
	// scan is requested, which later polls see in process without saving anything (n8n saves a
	// poll trigger's state only when it emits).
	waitFor(async () => scanPollRequests().length > 0, 150_000)
		.then(async () => {
			const mail = (await control('/mail', { sender_name: 'Queue Poll Court' })).mail;
			polled.scanRequestedAt = Date.now();
			polled.scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		})
		.catch(() => {});
}, 900_000);

afterAll(async () => {
	await cluster?.unload(data());
	await sim?.close();
}, 120_000);

const control = (url, body) =>
	fetch(`${sim.url}/_control${url}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then(
		(r) => r.json(),
	);
const state = () => fetch(`${sim.url}/_control/state`).then((r) => r.json());
const pollRequests = () =>
	sim.requests.filter(
		(r) => r.key === 'read-only' && r.path === '/v1/mails' && !r.query.scan_status,
	);
// The scan poll's requests: the scan list, or the mail list by scan status (its first poll).
const scanPollRequests = () =>
	sim.requests.filter(
		(r) =>
			r.key === 'read-only' &&
			(r.path === '/v1/scans' || (r.path === '/v1/mails' && r.query.scan_status)),
	);
const signed = (body, options) => sign(body, { secret: sim.webhookSecret, ...options });
const post = async (base, path, { raw, headers }) =>
	(await fetch(`${base}/webhook/${path}`, { method: 'POST', headers, body: raw })).status;
const deliverTo = (index, delivery, path = trigger.path) =>
	post(cluster.webhookBases[index % cluster.webhookBases.length], path, delivery);
let serial = 0;
/** A new-mail delivery for a mail item nobody has seen. */
const newMail = (extra = {}) =>
	signed({ ...payloads['new-mail'], id: 700_000 + ++serial, ...extra });

/** Every execution of a workflow (n8n 2.x lists them newest first, 100 at most a page, with a cursor). */
async function executionsOf(workflowId) {
	const all = [];
	let cursor;
	for (;;) {
		const query = `filter=${encodeURIComponent(JSON.stringify({ workflowId }))}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
		const page = (await rest.call('GET', `/rest/executions?${query}`)).data;
		all.push(...page.results);
		if (!page.nextCursor) return all;
		cursor = page.nextCursor;
	}
}
/** Executions a copy started that ended at the trigger (counted by the last triggerRuns()). */
let endedAtTrigger = 0;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** Per delivered mail id: executions started, and executions in which the node after the trigger ran. */
async function triggerRuns() {
	const runs = new Map();
	endedAtTrigger = 0;
	for (const e of await executionsOf(TRIGGER)) {
		const data = (await rest.execution(e.id)).data.resultData.runData;
		const items = data['Virtual Mailbox Trigger']?.[0]?.data?.main?.[0] ?? [];
		const key = items[0]?.json.id ?? e.id; // an execution that ended at the trigger has no item
		const entry = runs.get(String(key)) ?? { ran: 0 };
		if (data.Ran) entry.ran++;
		else endedAtTrigger++;
		runs.set(String(key), entry);
	}
	return runs;
}
const ranFor = async (ids) => {
	const runs = await triggerRuns();
	return ids.map((id) => runs.get(String(id))?.ran ?? 0);
};
const allFinished = async (workflowId, count) => {
	const list = await executionsOf(workflowId);
	return list.length >= count && list.every((e) => FINISHED.has(e.status));
};
/** Wait until a workflow has at least `count` executions, all finished; on timeout say what there is. */
async function settled(workflowId, count = 0, timeoutMs = 90_000) {
	try {
		await waitFor(() => allFinished(workflowId, count), timeoutMs);
	} catch (error) {
		const list = await executionsOf(workflowId);
		throw new Error(
			`${error.message}: ${list.length} executions of ${workflowId} (wanted ${count}): ${list.map((e) => `${e.id} ${e.status} ${e.mode}`).join(', ')}`,
		);
	}
}
/** Which worker ran an execution (each logs "Worker started execution <id>"). */
const workerOf = (executionId) =>
	cluster.workers.findIndex((w) =>
		w.output.join('').includes(`Worker started execution ${executionId} `),
	);

describe('webhook trigger in queue mode', () => {
	test('deliveries spread over both webhook processes: each valid one starts exactly one execution, run by a worker; forged, tampered, stale and unsigned ones get 401 from either process', async () => {
		// Two of each event kind, each about its own mail item, scan or shipment.
		const subject = (event, n) =>
			event === 'shipment-update'
				? { id: `q-ship-${n}` }
				: event === 'new-mail'
					? { id: 710_000 + n }
					: { id: 710_000 + n, uuid: `${n}0000000-0000-4000-8000-000000000000` };
		const bodies = ['new-mail', 'scan-update', 'open-update', 'shipment-update'].flatMap(
			(event, i) => [0, 1].map((j) => ({ ...payloads[event], ...subject(event, 2 * i + j) })),
		);
		const statuses = await Promise.all(bodies.map((body, i) => deliverTo(i, signed(body))));
		expect(statuses).toEqual(bodies.map(() => 200));
		const bad = [];
		for (let process = 0; process < cluster.webhookBases.length; process++) {
			const body = { ...payloads['new-mail'], id: 719_000 + process };
			const tampered = signed(body);
			tampered.raw = Buffer.from(JSON.stringify({ ...body, sender_name: 'Mallory' }));
			bad.push(
				await deliverTo(process, signed(body, { secret: 'whsec_not_the_secret' })),
				await deliverTo(process, tampered),
				await deliverTo(process, signed(body, { timestamp: Date.now() - 10 * 60_000 })),
				await deliverTo(process, {
					raw: Buffer.from(JSON.stringify(body)),
					headers: { 'content-type': 'application/json' },
				}),
			);
		}
		expect(bad).toEqual(Array(8).fill(401));
		await settled(TRIGGER, bodies.length);
		const executions = await executionsOf(TRIGGER);
		expect(executions).toHaveLength(bodies.length);
		expect(executions.every((e) => e.status === 'success' && e.mode === 'webhook')).toBe(true);
		const workers = executions.map((e) => workerOf(e.id));
		expect(workers.every((w) => w >= 0 && w < WORKERS)).toBe(true);
		report(
			`8 valid deliveries over 2 webhook processes: ${executions.length} executions, on workers ${[...new Set(workers)].map((w) => w + 1).join(' and ')}; 8 forged/tampered/stale/unsigned: all 401`,
		);
	}, 180_000);

	test('the same delivery sent to both webhook processes, one after the other and at the same moment: the workflow runs once for each', async () => {
		const sequential = Array.from({ length: 5 }, () => newMail());
		for (const delivery of sequential) {
			expect(await deliverTo(0, delivery)).toBe(200);
			expect(await deliverTo(1, delivery)).toBe(200);
		}
		const simultaneous = Array.from({ length: 5 }, () => newMail());
		for (const delivery of simultaneous)
			expect(await Promise.all([deliverTo(0, delivery), deliverTo(1, delivery)])).toEqual([
				200, 200,
			]);
		const ids = [...sequential, ...simultaneous].map((d) => JSON.parse(d.raw).id);
		const before = (await executionsOf(TRIGGER)).length;
		await waitFor(
			async () => (await allFinished(TRIGGER, before)) && (await ranFor(ids)).every((n) => n >= 1),
			90_000,
		);
		await new Promise((resolve) => setTimeout(resolve, 3000)); // a second run, if any, would land now
		const ran = await ranFor(ids);
		report(
			`copies to both webhook processes: one after the other ${ran.slice(0, 5).join(',')} runs, at the same moment ${ran.slice(5).join(',')} runs (goal 1 each); executions that ended at the trigger so far: ${endedAtTrigger}`,
		);
		expect(ran).toEqual(ids.map(() => 1));
	}, 180_000);

	test('a burst of distinct deliveries at once, then all of them replayed to the other process at once, three rounds: each runs once', async () => {
		const duplicates = [];
		for (let round = 0; round < 3; round++) {
			const burst = Array.from({ length: 10 }, () => newMail());
			expect(await Promise.all(burst.map((d, i) => deliverTo(i, d)))).toEqual(burst.map(() => 200));
			expect(await Promise.all(burst.map((d, i) => deliverTo(i + 1, d)))).toEqual(
				burst.map(() => 200),
			);
			const ids = burst.map((d) => JSON.parse(d.raw).id);
			await waitFor(
				async () => (await ranFor(ids)).every((n) => n >= 1) && (await allFinished(TRIGGER, 0)),
				120_000,
			);
			await new Promise((resolve) => setTimeout(resolve, 3000));
			const ran = await ranFor(ids);
			duplicates.push(ran.reduce((sum, n) => sum + n - 1, 0));
			expect(ran).toEqual(ids.map(() => 1));
		}
		report(
			`burst of 10 + replay of the 10 to the other process, 3 rounds: duplicate runs ${duplicates.join(', ')} (goal 0); executions that ended at the trigger so far: ${endedAtTrigger}`,
		);
	}, 300_000);

	test('secret rotation: a new secret saved in the credential is accepted by both webhook processes at once; the removed one is refused', async () => {
		const rotate = async (webhookSecret) => {
			const credential = credentialFor(sim);
			await rest.call('PATCH', `/rest/credentials/${CREDENTIAL_ID}`, {
				name: credential.name,
				type: credential.type,
				data: { ...credential.data, webhookSecret, previousWebhookSecret: '' },
			});
		};
		const NEW = 'whsec_rotated_in_queue_mode_0001';
		await rotate(NEW);
		try {
			const fresh = [0, 1].map(() =>
				sign({ ...payloads['new-mail'], id: 700_000 + ++serial }, { secret: NEW }),
			);
			expect(await Promise.all(fresh.map((d, i) => deliverTo(i, d)))).toEqual([200, 200]);
			const old = [0, 1].map(() => newMail());
			expect(await Promise.all(old.map((d, i) => deliverTo(i, d)))).toEqual([401, 401]);
		} finally {
			await rotate(sim.webhookSecret);
		}
		const back = [0, 1].map(() => newMail());
		expect(await Promise.all(back.map((d, i) => deliverTo(i, d)))).toEqual([200, 200]);
	}, 120_000);
});

describe('action node on the workers', () => {
	test('every resource answers through the webhook processes, run by the workers', async () => {
		const db = await state();
		const calls = {
			'account-get': {},
			'mail-get': { mailId: db.mails[0].id },
			'mail-getAll': {},
			'scan-get': { scanId: db.scans[0].id },
			'shipment-get': { shipmentId: db.shipments[0].id },
			'folder-getAll': {},
			'address-getDefault': {},
			'bankAccount-getAll': {},
		};
		const results = await Promise.all(
			Object.entries(calls).map(async ([name, body], i) => {
				const response = await fetch(`${cluster.webhookBases[i % 2]}/webhook/op/${name}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
				});
				return [name, response.status, await response.json()];
			}),
		);
		for (const [name, status, items] of results) {
			expect(status, `${name}: ${JSON.stringify(items).slice(0, 300)}`).toBe(200);
			expect([items].flat().length, name).toBeGreaterThan(0);
		}
		const executions = await executionsOf('VmbOperationsWf1');
		expect(executions.length).toBeGreaterThanOrEqual(Object.keys(calls).length);
		expect(executions.every((e) => workerOf(e.id) >= 0)).toBe(true);
	}, 300_000);

	test('auto-filing by a new folder name from several executions on both workers at once files every item into one folder', async () => {
		const sender = `Queue Filing Co ${Date.now()}`;
		const mails = [];
		for (let i = 0; i < 8; i++) mails.push((await control('/mail', { sender_name: sender })).mail);
		const deliveries = mails.map((mail) =>
			signed({ ...payloads['new-mail'], id: mail.id, sender_name: sender }),
		);
		expect(await Promise.all(deliveries.map((d, i) => deliverTo(i, d, filing.path)))).toEqual(
			deliveries.map(() => 200),
		);
		await waitFor(async () => {
			const db = await state();
			return mails.every((m) => db.mails.find((x) => x.id === m.id)?.folder_id);
		}, 90_000);
		await new Promise((resolve) => setTimeout(resolve, 2000)); // a late duplicate folder would be removed by now
		const db = await state();
		const folders = db.folders.filter((f) => f.name === sender);
		const filedInto = new Set(mails.map((m) => db.mails.find((x) => x.id === m.id).folder_id));
		report(
			`auto-filing 8 new mail items of one new sender at once over both workers: ${filedInto.size} folder(s) used, ${folders.length} left with that name`,
		);
		expect(folders).toHaveLength(1);
		expect([...filedInto]).toEqual([folders[0].id]);
	}, 150_000);

	test('a worker killed during Return All of 10,000 mail items: no execution reports success with a partial list', async () => {
		// Slow pages (1 s each), so the read, 6 pages at a time, is still running when the worker dies.
		await control('/faults', {
			path: '/v1/mails',
			method: 'GET',
			status: 200,
			delayMs: 1000,
			count: 10_000,
		});
		const before = new Set((await executionsOf('VmbOperationsWf1')).map((e) => e.id));
		const response = fetch(`${cluster.webhookBases[0]}/webhook/op/mail-getAll-all`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
			signal: AbortSignal.timeout(240_000),
		})
			.then((r) => r.status)
			.catch((error) => error.name);
		let execution;
		await waitFor(async () => {
			execution = (await executionsOf('VmbOperationsWf1')).find((e) => !before.has(e.id));
			return execution && workerOf(execution.id) >= 0;
		}, 60_000);
		await waitFor(
			async () => sim.requests.filter((r) => r.path === '/v1/mails' && r.key === 'full').length > 0,
			30_000,
		);
		await new Promise((resolve) => setTimeout(resolve, 3000)); // some pages read
		const victim = workerOf(execution.id);
		process.kill(-cluster.workers[victim].child.pid, 'SIGKILL');
		let final;
		await waitFor(async () => {
			final = (await executionsOf('VmbOperationsWf1')).filter((e) => !before.has(e.id));
			return final.every((e) => FINISHED.has(e.status));
		}, 200_000);
		await fetch(`${sim.url}/_control/faults`, { method: 'DELETE' });
		const expected = (await fetch(`${sim.url}/_control/query`).then((r) => r.json())).length;
		const outcomes = [];
		for (const e of final) {
			const detail = await rest.execution(e.id);
			const items =
				detail.data?.resultData?.runData?.['VM mail-getAll-all']?.[0]?.data?.main?.[0]?.length;
			outcomes.push(`${e.status}${items === undefined ? '' : ` with ${items} items`}`);
			if (e.status === 'success') expect(items).toBe(expected);
		}
		report(
			`worker ${victim + 1} killed during Return All of ${MAILS}: executions ${outcomes.join('; ')}; the caller got ${await response}`,
		);
		expect(final.length).toBeGreaterThan(0);
	}, 300_000);
});

describe('after every n8n process restarts', () => {
	test('replayed deliveries start nothing downstream, and the poll trigger (on the main process) emits each new package once', async () => {
		const replay = Array.from({ length: 6 }, () => newMail());
		expect(await Promise.all(replay.map((d, i) => deliverTo(i, d)))).toEqual(replay.map(() => 200));
		const ids = replay.map((d) => JSON.parse(d.raw).id);
		await waitFor(async () => (await ranFor(ids)).every((n) => n >= 1), 60_000);
		// The first package must have been emitted before the restart, and a scan poll must have seen
		// the requested scan in process (state held in memory only).
		await waitFor(
			async () => polled.first && (await pollOutput()).some((m) => m.id === polled.first.id),
			150_000,
		);
		await waitFor(
			async () => polled.scan && scanPollRequests().some((r) => r.at > polled.scanRequestedAt),
			150_000,
		);

		polled.stoppedAt = Date.now();
		await cluster.stopN8nProcesses();
		// The scan completes and a package arrives while n8n is down.
		await control(`/scans/${polled.scan.id}/status`, { status: 'COMPLETED' });
		polled.second = (
			await control('/mail', { sender_name: 'Queue Poll Shop 2', mail_type: 'package' })
		).mail;
		polled.restartedAt = Date.now();
		await cluster.startN8nProcesses();
		rest = await restClient(cluster.main.base);
		expect(
			await Promise.all(replay.map((d, i) => deliverTo(i + 1, signed(JSON.parse(d.raw))))),
		).toEqual(replay.map(() => 200));
		await new Promise((resolve) => setTimeout(resolve, 5000));
		await settled(TRIGGER);
		const ran = await ranFor(ids);
		report(
			`replay of 6 deliveries after restarting every n8n process: duplicate runs ${ran.reduce((s, n) => s + n - 1, 0)} (goal 0)`,
		);
		expect(ran).toEqual(ids.map(() => 1));

		// Polling resumes on the new main: nothing emitted again, the package from the downtime once.
		await waitFor(async () => (await pollOutput()).some((m) => m.id === polled.second.id), 150_000);
		// The scan that completed while n8n was down is emitted, its file downloaded.
		await waitFor(
			async () => (await scanPollOutput()).some((s) => s.scan_id === polled.scan.id),
			150_000,
		);
		// One more poll of each list after both were emitted: nothing again.
		const emittedAt = Date.now();
		await waitFor(
			async () =>
				pollRequests().some((r) => r.at > emittedAt) &&
				scanPollRequests().some((r) => r.at > emittedAt),
			150_000,
		);
		await new Promise((resolve) => setTimeout(resolve, 5000));
		await settled(pollNewMail.id);
		await settled(pollScans.id);
		const emitted = (await pollOutput()).map((m) => m.id);
		expect(emitted.sort()).toEqual([polled.first.id, polled.second.id].sort());
		// One poll a minute for the whole cluster, not one per process. A window across the restart
		// holds the last poll of the old main and the first of the new one (its schedule starts
		// anew), so those windows are not counted.
		const perMinute = Math.max(
			...bucketsOf(
				pollRequests().map((r) => r.at),
				polled.stoppedAt,
				polled.restartedAt,
			),
		);
		expect(perMinute).toBeLessThanOrEqual(2);
		report(
			`poll trigger: packages emitted ${emitted.length} (goal 2, once each, across a main restart); at most ${perMinute} poll request(s) in any minute`,
		);

		const downloads = (await scanPollOutput()).filter((s) => s.scan_id === polled.scan.id);
		report(
			`poll trigger: a scan requested after the last save and completed while n8n was down, emitted ${downloads.length} time(s) (goal 1)`,
		);
		expect(downloads).toHaveLength(1);
	}, 600_000);
});

/** The items one node of a workflow output, over all its executions. */
async function outputOf(workflowId, nodeName) {
	const out = [];
	for (const e of await executionsOf(workflowId)) {
		const run = (await rest.execution(e.id)).data?.resultData?.runData?.[nodeName];
		if (run) out.push(...run[0].data.main[0].map((i) => i.json));
	}
	return out;
}
const pollOutput = () => outputOf(pollNewMail.id, 'Poll new mail');
const scanPollOutput = () => outputOf(pollScans.id, 'Download scan');

/** Requests per minute-long window, counted from each request; windows that overlap [gapFrom, gapTo] are left out. */
function bucketsOf(times, gapFrom, gapTo) {
	return times
		.filter((t) => t + 60_000 <= gapFrom || t > gapTo)
		.map((t) => times.filter((u) => u >= t && u < t + 60_000).length);
}
