// In real n8n, while it runs: a published workflow with a Virtual Mailbox Trigger (new mail and
// scan update) at a Catch-Up Interval of 1 minute, whose deliveries never reach it (the
// subscriptions point at a port nothing listens on, as a stopped webhook process). Within the
// interval each new mail item and scan completion runs the workflow's step exactly once, caught up;
// a copy of each delivery sent afterwards runs nothing. The requests an interval costs with
// nothing new are counted at the simulator; once the workflow is unpublished no request follows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { freePort, restClient, startN8n, waitFor } from './real-n8n.mjs';
import { credentialFor } from './workflows.mjs';
import { listeningTriggerWorkflow, stopAll } from './listening-trigger.mjs';

const HOOK = '7a1e0000-0000-4000-8000-00000000c47d';
const WORKFLOW = listeningTriggerWorkflow({
	id: 'VmbCatchUpInt001',
	name: 'Catch up at the interval',
	webhookId: HOOK,
});
WORKFLOW.active = true;
// As n8n's editor saved it before this option stood on its own: Catch Up After Downtime added first.
WORKFLOW.nodes[0].parameters = {
	events: ['new-mail', 'scan-update'],
	options: { catchUp: true, catchUpIntervalMinutes: 1 },
};
const MINUTE = 60_000;

let sim;
let n8n;
let home;
let rest;
const control = async (method, url, body) =>
	await (
		await fetch(`${sim.url}/_control${url}`, {
			method,
			body: body ? JSON.stringify(body) : undefined,
		})
	).json();
/** The API requests n8n sent to the simulator since `since` (ms), by path. */
const apiRequests = (since = 0) => {
	const counts = {};
	for (const r of sim.requests)
		if (r.at >= since && r.path.startsWith('/v1/')) counts[r.path] = (counts[r.path] ?? 0) + 1;
	return counts;
};
const listReads = (since = 0) =>
	sim.requests.filter((r) => r.at >= since && r.path === '/v1/scans').map((r) => r.at);
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
			const run = runs.get(key) ?? { count: 0, caughtUp: [] };
			run.count++;
			run.caughtUp.push(json.caught_up === true);
			runs.set(key, run);
		}
	}
	return runs;
}

beforeAll(async () => {
	sim = await startSimulator({ count: 30, seed: 39 });
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-catch-up-interval-'));
	n8n = await startN8n({
		userFolder: path.join(home, 'n8n'),
		port: await freePort(),
		credentials: [credentialFor(sim)],
		workflows: [WORKFLOW],
		waitForWebhooks: [`${HOOK}/webhook`],
		log: (line) => {
			if (/Virtual Mailbox Trigger/i.test(line))
				process.stderr.write(`[n8n] ${line.slice(0, 400)}\n`);
		},
	});
	rest = await restClient(n8n.base);
}, 900_000);

afterAll(() => stopAll({ n8n, sim, home }), 60_000);

describe('the webhook trigger catches up at its interval while n8n runs', () => {
	test('deliveries lost while n8n runs (4 mail items, 2 scan completions): within the interval each runs the workflow once, caught up, and a copy of each delivery sent afterwards runs nothing; an interval with nothing new costs one request per kind and no execution; unpublished, it makes no request', async () => {
		// Deliveries go where nothing answers, as to a stopped webhook process.
		const nowhere = `http://127.0.0.1:${await freePort()}/webhook/${HOOK}/webhook`;
		await control('POST', '/webhooks', { event: 'new-mail', url: nowhere });
		await control('POST', '/webhooks', { event: 'scan-update', url: nowhere });
		// Activation primed (one page of each list).
		await waitFor(async () => listReads().length >= 1, 60_000);

		const events = [];
		const scans = [];
		for (let i = 0; i < 4; i++) {
			const { mail, deliveries } = await control('POST', '/mail', {
				sender_name: `Unreached sender ${i}`,
				mail_type: 'letter',
			});
			expect(deliveries.map((d) => d.status)).toEqual([null]); // lost
			events.push({ key: `new-mail:${mail.id}`, event: 'new-mail', id: mail.id });
			if (i < 2) scans.push(await control('POST', `/mails/${mail.id}/scan`, { type: 'scan' }));
		}
		for (const scan of scans) {
			const { deliveries } = await control('POST', `/scans/${scan.id}/status`, {
				status: 'COMPLETED',
			});
			expect(deliveries.map((d) => d.status)).toEqual([null]);
			events.push({ key: `scan-update:${scan.id}|COMPLETED`, event: 'scan-update', id: scan.id });
		}
		const happened = Date.now();

		let runs;
		await waitFor(
			async () => {
				runs = await stepRuns();
				return events.every((e) => runs.has(e.key));
			},
			3 * MINUTE,
			() => false,
			'the 6 events to be caught up',
		);
		const caughtUpAfterMs = Date.now() - happened;
		process.stdout.write(
			`[catch-up interval] 6 lost events ran ${Math.round(caughtUpAfterMs / 1000)} s after they happened (interval 60 s)\n`,
		);
		// Within the interval: the tick after the events at most a minute later, then the execution
		// and this poll (88 s measured on a loaded 2-core machine).
		expect(caughtUpAfterMs).toBeLessThan(2 * MINUTE);
		expect(events.map((e) => [e.key, runs.get(e.key)])).toEqual(
			events.map((e) => [e.key, { count: 1, caughtUp: [true] }]),
		);
		expect(runs.size).toBe(6);

		// A copy of each delivery, sent now to the Production URL: accepted, run by nothing after it.
		const production = `${n8n.base}/webhook/${HOOK}/webhook`;
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
			async () => (await rest.executions(WORKFLOW.id)).length >= executionsBefore + events.length,
			2 * MINUTE,
			() => false,
			'the copies to be handled',
		);
		const after = await stepRuns();
		expect(events.map((e) => [e.key, after.get(e.key)?.count])).toEqual(
			events.map((e) => [e.key, 1]),
		);
		expect(after.size).toBe(6);

		// Idle: the next interval reads each list once, a minute after the one before, and starts nothing.
		const executionsIdle = (await rest.executions(WORKFLOW.id)).length;
		const since = Date.now();
		const before = listReads().at(-1);
		await waitFor(async () => listReads(since).length >= 1, 2 * MINUTE);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const [next] = listReads(since);
		const idle = apiRequests(since);
		process.stdout.write(
			`[catch-up interval] idle: ${JSON.stringify(idle)} in one interval, ${Math.round((next - before) / 1000)} s after the one before\n`,
		);
		expect(idle).toEqual({ '/v1/mails': 1, '/v1/scans': 1 });
		// The whole of every interval since the catch-up, not only the part after the copies: each
		// list read is a tick, a minute after the one before (the copies read single items).
		for (const list of ['/v1/mails', '/v1/scans']) {
			const reads = sim.requests
				.filter((r) => r.at >= happened && r.path === list)
				.map((r) => r.at);
			const gaps = reads.slice(1).map((at, i) => Math.round((at - reads[i]) / 1000));
			expect(gaps.length, list).toBeGreaterThanOrEqual(1);
			for (const gap of gaps) expect(gap, `${list}: s between reads ${gaps}`).toBeGreaterThan(55);
		}
		expect(next - before).toBeGreaterThan(MINUTE - 5_000);
		expect(next - before).toBeLessThan(MINUTE + 5_000);
		expect((await rest.executions(WORKFLOW.id)).length).toBe(executionsIdle);

		// Unpublished: n8n closes the trigger and removes its cron; no request follows.
		const logged = n8n.output.join('').length;
		await rest.call('POST', `/rest/workflows/${WORKFLOW.id}/deactivate`, {});
		await waitFor(
			async () => /Virtual Mailbox Trigger deactivated/.test(n8n.output.join('').slice(logged)),
			MINUTE,
		);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const closed = Date.now();
		await new Promise((resolve) => setTimeout(resolve, MINUTE + 15_000));
		expect(apiRequests(closed)).toEqual({});
	});
});
