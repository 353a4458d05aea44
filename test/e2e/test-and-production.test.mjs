// In real n8n and Chromium: a published workflow whose Virtual Mailbox Trigger also listens for a
// test event, with both its Production URL and its Test URL subscribed (the spec lets several
// endpoints receive one event). A real delivery reaches both: the test execution and the
// production execution each run the workflow; neither is taken for the other's duplicate.
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { waitFor } from './real-n8n.mjs';
import { useSharedN8n } from './shared-n8n.mjs';
import { credentialFor } from './workflows.mjs';
import {
	launchChromium,
	listenForTestEvent,
	listeningTriggerWorkflow,
} from './listening-trigger.mjs';

const HOOK = '7a1e0000-0000-4000-8000-0000000b0747';
const WORKFLOW = listeningTriggerWorkflow({
	id: 'VmbTestAndProd01',
	name: 'Test and production',
	webhookId: HOOK,
});

let sim;
let n8n;
let rest;
let browser;
let session;
const subscribe = (event, url) =>
	fetch(`${sim.url}/_control/webhooks`, {
		method: 'POST',
		body: JSON.stringify({ event, url }),
	}).then((r) => r.json());
const subscribed = async () =>
	(await (await fetch(`${sim.url}/_control/webhooks`)).json()).map((s) => s.url);

beforeAll(async () => {
	sim = await startSimulator({ count: 10, seed: 11 });
	session = await useSharedN8n({ credentials: [credentialFor(sim)], workflows: [WORKFLOW] });
	({ n8n, rest } = session);
}, 900_000);

afterAll(async () => {
	await browser?.close();
	await session?.release();
	await sim?.close();
}, 120_000);

describe('Listen for test event while the workflow is active', () => {
	test('a real delivery sent to the Test URL first and to the Production URL then runs the workflow in both: a test execution and a production one', async () => {
		const production = `${n8n.base}/webhook/${HOOK}/webhook`;
		const testUrl = `${n8n.base}/webhook-test/${HOOK}/webhook`;
		const { data: saved } = await rest.call('GET', `/rest/workflows/${WORKFLOW.id}`);
		await rest.call('POST', `/rest/workflows/${WORKFLOW.id}/activate`, {
			versionId: saved.versionId,
		});

		browser = await launchChromium(inject('chromiumPath'));
		// Execute workflow: the trigger listens at its Test URL.
		await listenForTestEvent(browser, n8n.base, WORKFLOW.id);
		// The dashboard's subscriptions, made by hand: the Test URL first, so the service sends to it first.
		await subscribe('new-mail', testUrl);
		await subscribe('new-mail', production);
		expect((await subscribed()).filter((url) => url === testUrl || url === production)).toEqual([
			testUrl,
			production,
		]);
		// n8n takes a moment to register the test webhook after the click.
		let deliveries;
		let mail;
		await waitFor(
			async () => {
				({ mail, deliveries } = await (
					await fetch(`${sim.url}/_control/mail`, {
						method: 'POST',
						body: JSON.stringify({ sender_name: 'Both URLs' }),
					})
				).json());
				return deliveries.find((d) => d.url === testUrl)?.status === 200;
			},
			30_000,
			() => false,
			'n8n listening at the Test URL',
		);
		const answers = Object.fromEntries(deliveries.map((d) => [d.url, d]));
		expect(answers[production].status).toBe(200);
		expect(answers[production].answer).not.toMatch(/ignored/);

		const runs = async () => {
			const found = {};
			for (const e of await rest.executions(WORKFLOW.id)) {
				const execution = await rest.execution(e.id);
				const item =
					execution.data.resultData.runData['Virtual Mailbox Trigger']?.[0]?.data?.main[0]?.[0]
						?.json;
				if (item?.id === mail.id)
					found[execution.mode] = Object.keys(execution.data.resultData.runData);
			}
			return found;
		};
		let found = {};
		await waitFor(
			async () => {
				found = await runs();
				return found.manual && found.webhook;
			},
			60_000,
			() => false,
			'a test execution and a production execution for the delivery',
		);
		expect(found.manual).toContain('Got it');
		expect(found.webhook).toContain('Got it');
	});
});
