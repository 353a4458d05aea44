// In real n8n: a published workflow with a Virtual Mailbox Trigger (new mail and scan update) and a
// step after it. n8n is stopped; 20 mail items are logged and 5 scans complete in the simulator,
// whose deliveries all fail (the service never retries). n8n is started again: the trigger's
// trigger() catches up, and each of the 25 events runs the workflow's step exactly once. A copy of
// each delivery sent afterwards runs nothing. The requests the catch-up costs are counted from the
// simulator's log: at each start with nothing new, and per catch-up at an interval.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { freePort, restClient, startN8n, waitFor } from './real-n8n.mjs';
import { credentialFor } from './workflows.mjs';
import { queryDatabase } from './n8n-database.mjs';
import { listeningTriggerWorkflow, stopAll } from './listening-trigger.mjs';

const HOOK = '7a1e0000-0000-4000-8000-00000000c47c';
const WORKFLOW = listeningTriggerWorkflow({
	id: 'VmbCatchUpWf0001',
	name: 'Catch up after downtime',
	webhookId: HOOK,
});
WORKFLOW.active = true;
WORKFLOW.nodes[0].parameters = {
	events: ['new-mail', 'scan-update'],
	options: { catchUpIntervalMinutes: 0 },
};

let sim;
let n8n;
let home;
let port;
let rest;
const control = async (method, url, body) =>
	await (
		await fetch(`${sim.url}/_control${url}`, {
			method,
			body: body ? JSON.stringify(body) : undefined,
		})
	).json();
/** The API requests n8n sent to the simulator since the last clear, by path. */
const apiRequests = async () => {
	const counts = {};
	for (const r of await control('GET', '/requests')) {
		if (r.path.startsWith('/v1/')) counts[r.path] = (counts[r.path] ?? 0) + 1;
	}
	return counts;
};
const start = async () => {
	n8n = await startN8n({
		userFolder: path.join(home, 'n8n'),
		port,
		...(n8n ? {} : { credentials: [credentialFor(sim)], workflows: [WORKFLOW] }),
		waitForWebhooks: [`${HOOK}/webhook`],
		env: { N8N_LOG_LEVEL: 'debug' },
		log: (line) => {
			if (/Virtual Mailbox Trigger|staticData|static data/i.test(line))
				process.stderr.write(`[n8n] ${line.slice(0, 400)}\n`);
		},
	});
	rest = await restClient(n8n.base);
};
/** The trigger's catch-up state as n8n's database holds it. */
async function savedState() {
	const [row] = await queryDatabase(n8n, 'SELECT "staticData" FROM workflow_entity WHERE id = ?', [
		WORKFLOW.id,
	]);
	const stored = row.staticData ?? undefined;
	const staticData = typeof stored === 'string' ? JSON.parse(stored) : stored;
	return staticData?.['node:Virtual Mailbox Trigger'] ?? staticData;
}
/** Event key → how many times the step after the trigger received it, over every execution. */
async function stepRuns() {
	const runs = new Map();
	for (const e of await rest.executions(WORKFLOW.id)) {
		const execution = await rest.execution(e.id);
		for (const item of execution.data.resultData.runData['Got it']?.[0]?.data?.main?.[0] ?? []) {
			const json = item.json;
			const key =
				json.event === 'new-mail'
					? `new-mail:${json.id}`
					: `${json.event}:${json.id}|${json.status}`;
			runs.set(key, (runs.get(key) ?? 0) + 1);
		}
	}
	return runs;
}

beforeAll(async () => {
	sim = await startSimulator({ count: 30, seed: 38 });
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-catch-up-'));
	port = await freePort();
	await control('DELETE', '/requests');
	await start();
}, 900_000);

afterAll(() => stopAll({ n8n, sim, home }), 60_000);

describe('the webhook trigger after n8n was down', () => {
	test('n8n stopped while 20 mail items and 5 scan completions happen: at the next start each runs the workflow once, and a copy of each delivery sent afterwards runs nothing', async () => {
		const production = `${n8n.base}/webhook/${HOOK}/webhook`;
		await control('POST', '/webhooks', { event: 'new-mail', url: production });
		await control('POST', '/webhooks', { event: 'scan-update', url: production });
		// The first activation primed: one page of each list (and the account, to tell a later key
		// rotation from another account; activation's own key check asks it too).
		await waitFor(async () => (await apiRequests())['/v1/scans'] >= 1, 30_000);
		const primed = await apiRequests();
		expect(primed).toMatchObject({ '/v1/mails': 1, '/v1/scans': 1 });
		expect(Object.keys(primed).sort()).toEqual(['/v1/account', '/v1/mails', '/v1/scans']);
		process.stderr.write(
			`[state after priming] ${JSON.stringify(await savedState()).slice(0, 600)}\n`,
		);
		// Five letters logged while n8n runs (delivered: each runs once now), and a scan of each
		// requested (no event), to complete while n8n is down.
		const scans = [];
		const live = [];
		for (let i = 0; i < 5; i++) {
			const { mail, deliveries } = await control('POST', '/mail', {
				sender_name: `Before the stop ${i}`,
				mail_type: 'letter',
			});
			expect(deliveries.map((d) => d.status)).toEqual([200]);
			live.push(`new-mail:${mail.id}`);
			scans.push(await control('POST', `/mails/${mail.id}/scan`, { type: 'scan' }));
		}
		expect(scans.map((s) => s.status)).toEqual(Array(5).fill('IN_PROCESS'));
		await waitFor(
			async () => {
				const runs = await stepRuns();
				return live.every((key) => runs.get(key) === 1);
			},
			60_000,
			() => false,
			'the live deliveries to run',
		);

		process.stderr.write(
			`[state before the stop] ${JSON.stringify(await savedState()).slice(0, 600)}\n`,
		);
		await n8n.stop();
		const events = [];
		for (let i = 0; i < 20; i++) {
			const { mail, deliveries } = await control('POST', '/mail', {
				sender_name: `Downtime sender ${i}`,
			});
			expect(deliveries.map((d) => d.status)).toEqual([null]); // n8n unreachable
			events.push({ key: `new-mail:${mail.id}`, event: 'new-mail', id: mail.id });
		}
		for (const scan of scans) {
			const { deliveries } = await control('POST', `/scans/${scan.id}/status`, {
				status: 'COMPLETED',
			});
			expect(deliveries.map((d) => d.status)).toEqual([null]);
			events.push({ key: `scan-update:${scan.id}|COMPLETED`, event: 'scan-update', id: scan.id });
		}

		await control('DELETE', '/requests');
		await start();
		let runs;
		try {
			await waitFor(
				async () => {
					runs = await stepRuns();
					return events.every((e) => runs.has(e.key));
				},
				120_000,
				() => false,
				'the 25 events to run',
			);
		} catch (error) {
			// What n8n did instead, for the failure's reader.
			for (const e of await rest.executions(WORKFLOW.id)) {
				const execution = await rest.execution(e.id);
				process.stderr.write(
					`[execution ${e.id}] ${execution.mode} ${execution.status} ${JSON.stringify(execution.data.resultData.error ?? null).slice(0, 300)} trigger items: ${execution.data.resultData.runData['Virtual Mailbox Trigger']?.[0]?.data?.main?.[0]?.length}\n`,
				);
			}
			process.stderr.write(
				`[state after the restart] ${JSON.stringify(await savedState()).slice(0, 600)}\n`,
			);
			process.stderr.write(`[requests after the restart] ${JSON.stringify(await apiRequests())}\n`);
			throw error;
		}
		expect(events.map((e) => [e.key, runs.get(e.key)])).toEqual(events.map((e) => [e.key, 1]));
		expect(runs.size).toBe(30); // and the 5 letters delivered live, once each
		// The catch-up at this start: one request per list; n8n 2.41.1 also calls the webhook's
		// create() at each start, whose key check is the one GET /v1/account.
		expect(await apiRequests()).toEqual({ '/v1/account': 1, '/v1/mails': 1, '/v1/scans': 1 });

		// A copy of each delivery, sent now: accepted by the webhook, run by nothing after it.
		const executionsBefore = (await rest.executions(WORKFLOW.id)).length;
		for (const e of events) {
			const { deliveries } = await control('POST', '/deliver', {
				event: e.event,
				id: e.id,
				url: production,
			});
			expect(deliveries[0].status).toBe(200);
		}
		await waitFor(
			async () => (await rest.executions(WORKFLOW.id)).length >= executionsBefore + 25,
			120_000,
			() => false,
			'the copies to be handled',
		);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const after = await stepRuns();
		expect(events.map((e) => [e.key, after.get(e.key)])).toEqual(events.map((e) => [e.key, 1]));
		expect(after.size).toBe(30);
	});

	test('idle cost: a start with nothing new makes one request per list, besides the key check of activation, and starts no execution', async () => {
		const executionsBefore = (await rest.executions(WORKFLOW.id)).length;
		await n8n.stop();
		await control('DELETE', '/requests');
		await start();
		await waitFor(async () => (await apiRequests())['/v1/scans'] >= 1, 30_000);
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		expect(await apiRequests()).toEqual({ '/v1/account': 1, '/v1/mails': 1, '/v1/scans': 1 });
		expect((await rest.executions(WORKFLOW.id)).length).toBe(executionsBefore);
	});
});
