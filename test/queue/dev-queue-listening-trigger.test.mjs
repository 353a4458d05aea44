// `npm run dev -- --queue` as test/dev.mjs runs it: the simulator follows the main process's lines
// (follow-triggers.mjs) and the dev command tells the user that a trigger "listening for a test
// event" is subscribed at its Test URL. A new workflow's trigger listening for a test event (the
// user's one click, "Execute workflow") must then receive the simulator's mail and run.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { followTriggers } from '../simulator/follow-triggers.mjs';
import { restClient, waitFor } from '../e2e/real-n8n.mjs';
import { CREDENTIAL_ID, credentialFor } from '../e2e/workflows.mjs';
import { sharedCluster } from './cluster.mjs';

const HOOK = '7a1e0000-0000-4000-8000-00000000q7e1';
const WORKFLOW = {
	id: 'VmbQueueListening',
	name: 'Queue: my first trigger',
	active: false,
	nodes: [
		{
			id: 'q1',
			name: 'Virtual Mailbox Trigger',
			type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: HOOK,
			parameters: { events: ['new-mail'], options: {} },
			credentials: {
				virtualMailboxApi: { id: CREDENTIAL_ID, name: 'Virtual Mailbox (local simulator)' },
			},
		},
		{
			id: 'q2',
			name: 'Got it',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [300, 0],
			parameters: {},
		},
	],
	connections: {
		'Virtual Mailbox Trigger': { main: [[{ node: 'Got it', type: 'main', index: 0 }]] },
	},
	settings: {},
	pinData: {},
};

let sim;
let cluster;
let rest;
let follower;
let unfollow;
beforeAll(async () => {
	sim = await startSimulator({ count: 20, seed: 3 });
	follower = followTriggers(sim.url);
	cluster = await sharedCluster();
	// As test/dev.mjs in queue mode: the main process's lines drive the simulator.
	unfollow = cluster.onLine((line) => line.startsWith('[main] ') && follower.line(line));
	await cluster.load({ credentials: [credentialFor(sim)], workflows: [WORKFLOW] });
	rest = await restClient(cluster.main.base);
}, 900_000);

afterAll(async () => {
	unfollow?.();
	await sim?.close();
}, 120_000);

test('in npm run dev --queue, a trigger listening for a test event receives mail logged in the simulator and runs its workflow', async () => {
	await rest.call('POST', `/rest/workflows/${WORKFLOW.id}/run`, {
		triggerToStartFrom: { name: 'Virtual Mailbox Trigger' },
	});
	await waitFor(
		async () => {
			await follower.settled();
			const subs = await (await fetch(`${sim.url}/_control/webhooks`)).json();
			return subs.some((s) => s.event === 'new-mail' && s.url.includes(`/webhook-test/${HOOK}/`));
		},
		60_000,
		() => false,
		'the Test URL subscribed',
	);
	const logged = await (
		await fetch(`${sim.url}/_control/mail`, {
			method: 'POST',
			body: JSON.stringify({ sender_name: 'Queue Newcomer', mail_type: 'letter' }),
		})
	).json();
	const toTestUrl = logged.deliveries.filter((d) => d.url.includes('/webhook-test/'));
	expect(toTestUrl).toHaveLength(1);
	expect(
		toTestUrl[0].status,
		`${toTestUrl[0].url} answered ${toTestUrl[0].answer ?? toTestUrl[0].error}`,
	).toBe(200);
	let ran;
	await waitFor(
		async () => {
			ran = (await rest.executions(WORKFLOW.id)).find(
				(e) => e.mode === 'manual' || e.mode === 'webhook',
			);
			return ran !== undefined;
		},
		60_000,
		() => false,
		'the listening workflow to run',
	);
	expect(ran).toBeDefined();
});
