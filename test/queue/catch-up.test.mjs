// Queue mode (the shared cluster of cluster.mjs: Postgres, Redis, a main, two workers, two webhook
// processes), as users run it: a published workflow with a Virtual Mailbox Trigger (new mail and scan update) at a Catch-Up
// Interval of 1 minute, then a step. One webhook process is stopped while the main and the worker
// run; its subscriptions still point at it, so 20 mail items logged and 5 scans completed are
// delivered nowhere (the service never retries). The trigger on the main (the leader) catches them
// up at its interval: each of the 25 events runs the step once, on a worker. A copy of each
// delivery sent afterwards to the webhook process that runs runs nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { restClient, waitFor } from '../e2e/real-n8n.mjs';
import { credentialFor } from '../e2e/workflows.mjs';
import { listeningTriggerWorkflow } from '../e2e/listening-trigger.mjs';
import { sharedCluster } from './cluster.mjs';

const HOOK = '7a1e0000-0000-4000-8000-00000000c47e';
const WORKFLOW = listeningTriggerWorkflow({
	id: 'VmbQueueCatchUp1',
	name: 'Queue: catch up at the interval',
	webhookId: HOOK,
});
WORKFLOW.active = true;
// As n8n's editor saves the option added on its own.
WORKFLOW.nodes[0].parameters = {
	events: ['new-mail', 'scan-update'],
	options: { catchUpIntervalMinutes: 1 },
};
const MINUTE = 60_000;
const report = (line) => process.stdout.write(`[queue catch-up] ${line}\n`);

let sim;
let cluster;
let rest;
const control = async (url, body) =>
	await (
		await fetch(`${sim.url}/_control${url}`, { method: 'POST', body: JSON.stringify(body ?? {}) })
	).json();

/** Every execution of the workflow (n8n 2.x lists them newest first, 100 at most a page). */
async function executions() {
	const all = [];
	let cursor;
	for (;;) {
		const query = `filter=${encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW.id }))}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
		const page = (await rest.call('GET', `/rest/executions?${query}`)).data;
		all.push(...(page.results ?? page));
		if (!page.nextCursor) return all;
		cursor = page.nextCursor;
	}
}
/** Event key → the modes of the executions in which the step after the trigger received it. */
async function stepRuns() {
	const runs = new Map();
	for (const e of await executions()) {
		const data = (await rest.execution(e.id)).data.resultData.runData;
		for (const item of data['Got it']?.[0]?.data?.main?.[0] ?? []) {
			const json = item.json;
			const key =
				json.event === 'new-mail'
					? `new-mail:${json.id}`
					: `${json.event}:${json.id}|${json.status}`;
			runs.set(key, [...(runs.get(key) ?? []), `${e.mode}${json.caught_up ? ', caught up' : ''}`]);
		}
	}
	return runs;
}

const WEBHOOKS = [`${HOOK}/webhook`];
let stoppedWebhook = false;
beforeAll(async () => {
	sim = await startSimulator({ count: 40, seed: 40 });
	cluster = await sharedCluster();
	await cluster.load({
		credentials: [credentialFor(sim)],
		workflows: [WORKFLOW],
		waitForWebhooks: WEBHOOKS,
	});
	rest = await restClient(cluster.main.base);
}, 900_000);

// The cluster is left as found: both webhook processes running, this file's workflow unpublished.
afterAll(async () => {
	if (stoppedWebhook) await cluster.startWebhook(1);
	await cluster?.unload({ workflows: [WORKFLOW], waitForWebhooks: WEBHOOKS });
	await sim?.close();
}, 300_000);

describe('webhook trigger in queue mode, a webhook process down', () => {
	test('one webhook process stopped while the main and the workers run: 20 mail items and 5 scan completions delivered to it each run the workflow once, caught up by the main at its interval; a copy of each delivery sent afterwards to the running webhook process runs nothing', async () => {
		// The activation on the main primed: one page of each list.
		await waitFor(async () => sim.requests.some((r) => r.path === '/v1/scans'), 2 * MINUTE);
		const [running, stopped] = cluster.webhookBases;
		const lost = `${stopped}/webhook/${HOOK}/webhook`;
		await control('/webhooks', { event: 'new-mail', url: lost });
		await control('/webhooks', { event: 'scan-update', url: lost });
		// Five items logged while everything runs, delivered (each runs once); a scan of each
		// requested (no event), to complete once the process is down.
		const scans = [];
		const delivered = [];
		for (let i = 0; i < 5; i++) {
			const { mail, deliveries } = await control('/mail', { sender_name: `Scanned ${i}` });
			expect(deliveries.map((d) => d.status)).toEqual([200]);
			delivered.push(`new-mail:${mail.id}`);
			scans.push(await control(`/mails/${mail.id}/scan`, { type: 'scan' }));
		}
		await waitFor(
			async () => {
				const runs = await stepRuns();
				return delivered.every((key) => runs.has(key));
			},
			2 * MINUTE,
			() => false,
			'the 5 delivered items to run',
		);

		await cluster.stopWebhook(1);
		stoppedWebhook = true;
		const events = [];
		for (let i = 0; i < 20; i++) {
			const { mail, deliveries } = await control('/mail', {
				sender_name: `While a webhook process is down ${i}`,
			});
			expect(deliveries.map((d) => d.status)).toEqual([null]); // nothing answers there
			events.push({ key: `new-mail:${mail.id}`, event: 'new-mail', id: mail.id });
		}
		for (const scan of scans) {
			const { deliveries } = await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
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
			4 * MINUTE,
			() => false,
			'the 25 events to be caught up',
		);
		const after = Date.now() - happened;
		report(
			`25 events delivered to a stopped webhook process ran ${Math.round(after / 1000)} s later`,
		);
		expect(after).toBeLessThan(MINUTE + 60_000); // within the interval, plus the queue and this poll
		expect(events.map((e) => [e.key, runs.get(e.key)])).toEqual(
			events.map((e) => [e.key, ['trigger, caught up']]),
		);

		// A copy of each lost delivery, sent to the process that runs: accepted, run by nothing after it.
		const before = (await executions()).length;
		for (const e of events) {
			const { deliveries } = await control('/deliver', {
				event: e.event,
				id: e.id,
				url: `${running}/webhook/${HOOK}/webhook`,
			});
			expect(deliveries[0].status).toBe(200);
		}
		await waitFor(
			async () => {
				const list = await executions();
				return (
					list.length >= before + events.length &&
					list.every((e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status))
				);
			},
			3 * MINUTE,
			() => false,
			'the copies to be handled',
		);
		const final = await stepRuns();
		expect(events.map((e) => [e.key, final.get(e.key)?.length])).toEqual(
			events.map((e) => [e.key, 1]),
		);
		// Delivered ones ran once too, whether their delivery or a catch-up claimed them first.
		expect(delivered.map((key) => [key, final.get(key)?.length])).toEqual(
			delivered.map((key) => [key, 1]),
		);
		report(
			`copies of the 25 deliveries sent to the running webhook process: ${events.filter((e) => final.get(e.key).length > 1).length} ran again (goal 0)`,
		);
	}, 600_000);
});
