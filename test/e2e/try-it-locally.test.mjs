// `npm run dev` as a newcomer meets it, in real n8n and Chromium: the simulator subscribes the
// Virtual Mailbox Triggers n8n runs by itself (published: Production URL; listening for a test
// event: Test URL), the mailroom page logs mail that reaches them, and the dev command's samples do
// what it says they do.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { followTriggers } from '../simulator/follow-triggers.mjs';
import { waitFor } from './real-n8n.mjs';
import { sharedN8n, useSharedN8n } from './shared-n8n.mjs';
import { credentialFor } from './workflows.mjs';
import {
	launchChromium,
	listenForTestEvent,
	listeningTriggerWorkflow,
} from './listening-trigger.mjs';
import { DEV_SAMPLES, devWorkflows, UNPUBLISHED_IN_DEV } from './examples.mjs';

const ARTIFACTS = path.resolve(
	path.dirname(fileURLToPath(import.meta.url)),
	'../../test-artifacts/editor',
);
const MY_HOOK = '7a1e0000-0000-4000-8000-00000000f1a7';
/** A workflow the user builds: a Virtual Mailbox Trigger as n8n adds it (version 2), then a step. */
const MY_WORKFLOW = listeningTriggerWorkflow({
	id: 'VmbFirstTrigger1',
	name: 'My first trigger',
	webhookId: MY_HOOK,
});

let sim;
let n8n;
let rest;
let browser;
let session;
let examples;
const subscriptions = async () => (await fetch(`${sim.url}/_control/webhooks`)).json();
const urlsOf = async (event) =>
	(await subscriptions()).filter((s) => s.event === event).map((s) => s.url);
const logMail = async (body) =>
	(await fetch(`${sim.url}/_control/mail`, { method: 'POST', body: JSON.stringify(body) })).json();
/** The finished execution of a workflow whose trigger `node` output the mail item `mailId`. */
async function executionFor(workflowId, node, mailId) {
	let found;
	await waitFor(
		async () => {
			for (const e of (await rest.executions(workflowId)).filter(
				(x) => x.finished || x.status === 'success' || x.status === 'error',
			)) {
				const execution = await rest.execution(e.id);
				if (triggerItem(execution, node)?.id === mailId) found = execution;
			}
			return found !== undefined;
		},
		60_000,
		() => false,
		`the execution of ${workflowId} for mail ${mailId}`,
	);
	return found;
}
const ranNodes = (execution) => Object.keys(execution.data.resultData.runData);
const triggerItem = (execution, node) =>
	execution.data.resultData.runData[node]?.[0]?.data?.main[0]?.[0]?.json;

beforeAll(async () => {
	sim = await startSimulator({ count: 40, seed: 7 });
	const follower = followTriggers(sim.url);
	// n8n's default security settings and log level, as `npm run dev` runs it.
	examples = devWorkflows((await sharedN8n()).filesFolder);
	session = await useSharedN8n({
		credentials: [credentialFor(sim)],
		workflows: [...examples.map((w) => w.workflow), MY_WORKFLOW],
		waitForWebhooks: examples.filter((w) => w.path && w.workflow.active).map((w) => w.path),
		log: (line) => follower.line(line),
	});
	await follower.settled();
	({ n8n, rest } = session);
}, 900_000);

afterAll(async () => {
	await browser?.close();
	await session?.release();
	await sim?.close();
}, 120_000);

describe('the simulator follows the triggers n8n runs', () => {
	test('each published example is subscribed at its Production URL for each event it selects; the example left unpublished is not', async () => {
		const expected = examples
			.filter((w) => w.path && w.workflow.active)
			.flatMap((w) => w.events.map((event) => `${event} ${n8n.base}/webhook/${w.path}`))
			.sort();
		expect(expected.length).toBeGreaterThanOrEqual(4);
		// n8n prints its log lines a moment after the webhooks answer.
		const subscribed = async () => (await subscriptions()).map((s) => `${s.event} ${s.url}`).sort();
		await waitFor(
			async () => (await subscribed()).length >= expected.length,
			30_000,
			() => false,
			'the published examples subscribed',
		).catch(() => {});
		expect(await subscribed()).toEqual(expected);
		for (const file of UNPUBLISHED_IN_DEV) {
			const unpublished = examples.find((w) => w.file === file);
			expect((await subscriptions()).some((s) => s.url.includes(unpublished.path))).toBe(false);
		}
	});

	test("publishing a new workflow subscribes its trigger's Production URL by itself, so logged mail runs it; unpublishing unsubscribes it", async () => {
		const production = `${n8n.base}/webhook/${MY_HOOK}/webhook`;
		const { data: saved } = await rest.call('GET', `/rest/workflows/${MY_WORKFLOW.id}`);
		await rest.call('POST', `/rest/workflows/${MY_WORKFLOW.id}/activate`, {
			versionId: saved.versionId,
		});
		await waitFor(
			async () => (await urlsOf('new-mail')).includes(production),
			30_000,
			() => false,
			'the Production URL subscribed',
		);
		const { mail, deliveries } = await logMail({
			sender_name: 'Production Sender',
			mail_type: 'magazine',
		});
		expect(deliveries.find((d) => d.url === production)?.status).toBe(200);
		const execution = await executionFor(MY_WORKFLOW.id, 'Virtual Mailbox Trigger', mail.id);
		expect(execution.mode).toBe('webhook');
		expect(triggerItem(execution, 'Virtual Mailbox Trigger')).toMatchObject({
			event: 'new-mail',
			sender_name: 'Production Sender',
			mail_type: 'magazine',
		});
		expect(ranNodes(execution)).toContain('Got it');
		await rest.call('POST', `/rest/workflows/${MY_WORKFLOW.id}/deactivate`, {});
		await waitFor(
			async () => !(await urlsOf('new-mail')).includes(production),
			30_000,
			() => false,
			'the Production URL unsubscribed',
		);
	});
});

describe("the dev command's samples", () => {
	const folderOf = (mailId) =>
		sim.db.folders.find((f) => f.id === sim.db.mails.find((m) => m.id === mailId)?.folder_id)?.name;
	const rules = () => examples.find((w) => w.file === 'file-mail-by-rules.json').workflow;
	const alert = () => examples.find((w) => w.file === 'package-arrived-alert.json').workflow;
	const triggerOf = (workflow) =>
		workflow.nodes.find((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger').name;

	test('the package sample is filed in Packages by File by Rules and the package alert runs', async () => {
		const sample = DEV_SAMPLES.find((s) => s.body.mail_type === 'package');
		const { mail, deliveries } = await logMail(sample.body);
		expect(deliveries.length).toBeGreaterThanOrEqual(2);
		expect(deliveries.map((d) => d.status)).toEqual(deliveries.map(() => 200));
		expect(ranNodes(await executionFor(rules().id, triggerOf(rules()), mail.id))).toContain(
			'File by rules',
		);
		expect(ranNodes(await executionFor(alert().id, triggerOf(alert()), mail.id))).toContain(
			'Alert the team',
		);
		await waitFor(
			async () => folderOf(mail.id) === 'Packages',
			30_000,
			() => false,
			'the package filed in Packages',
		);
	});

	test('the bank letter sample is filed in Banks and marked read, with no package alert', async () => {
		const sample = DEV_SAMPLES.find((s) => s.body.mail_type === 'letter');
		const { mail } = await logMail(sample.body);
		expect(ranNodes(await executionFor(rules().id, triggerOf(rules()), mail.id))).toContain(
			'File by rules',
		);
		await waitFor(
			async () =>
				folderOf(mail.id) === 'Banks' && sim.db.mails.find((m) => m.id === mail.id).is_read,
			30_000,
			() => false,
			'the letter filed in Banks',
		);
		expect(ranNodes(await executionFor(alert().id, triggerOf(alert()), mail.id))).not.toContain(
			'Alert the team',
		);
	});
});

describe('the mailroom page', () => {
	test('mail logged on the page reaches a new workflow listening for a test event, with nothing registered by hand, and the page shows the delivery answered', async () => {
		browser = await launchChromium(inject('chromiumPath'));
		// The one click: Execute workflow, which makes the trigger listen at its Test URL.
		await listenForTestEvent(browser, n8n.base, MY_WORKFLOW.id);
		const testUrl = `${n8n.base}/webhook-test/${MY_HOOK}/webhook`;
		await waitFor(
			async () => (await urlsOf('new-mail')).includes(testUrl),
			30_000,
			() => false,
			'the Test URL subscribed',
		);

		const mailroom = await browser.newPage({ viewport: { width: 1300, height: 900 } });
		await mailroom.goto(`${sim.url}/mailroom`);
		await mailroom.waitForSelector('#mail-type option', { state: 'attached' });
		await mailroom.fill('#sender', 'Mailroom Page Sender');
		await mailroom.fill('#recipient', 'Grace Hopper');
		await mailroom.selectOption('#mail-type', 'fulfillment');
		await mailroom.click('#log-mail');
		await mailroom.waitForFunction(
			() =>
				/Logged fulfillment from Mailroom Page Sender: \d+ deliver/.test(
					document.querySelector('#message').textContent,
				),
			null,
			{ timeout: 30_000 },
		);

		const logged = sim.db.mails.find((m) => m.sender_name === 'Mailroom Page Sender');
		const manual = await executionFor(MY_WORKFLOW.id, 'Virtual Mailbox Trigger', logged.id);
		expect(manual.mode).toBe('manual');
		expect(triggerItem(manual, 'Virtual Mailbox Trigger')).toMatchObject({
			event: 'new-mail',
			sender_name: 'Mailroom Page Sender',
			recipient_name: 'Grace Hopper',
			mail_type: 'fulfillment',
		});
		expect(triggerItem(manual, 'Virtual Mailbox Trigger')).not.toHaveProperty('delivery');
		// The page lists the delivery to the Test URL with n8n's answer; n8n then stops listening, and the simulator unsubscribes it.
		await mailroom.waitForFunction(
			(url) =>
				[...document.querySelectorAll('#deliveries tbody tr')].some(
					(tr) => tr.textContent.includes(url) && tr.textContent.includes('200'),
				),
			testUrl,
			{ timeout: 10_000 },
		);
		await waitFor(
			async () => !(await urlsOf('new-mail')).includes(testUrl),
			30_000,
			() => false,
			'the Test URL unsubscribed',
		);
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		await mailroom.screenshot({ path: path.join(ARTIFACTS, 'mailroom.png'), fullPage: true });

		// Discarding sends no event: the page says so, not that a subscription is missing.
		const row = mailroom.locator('#mails tbody tr', { hasText: 'Mailroom Page Sender' });
		await row.locator('button[data-action="Discard"]').click();
		await mailroom.waitForFunction(
			(id) =>
				document.querySelector('#message').textContent === `Discarded ${id} (no event for this)`,
			logged.id,
			{ timeout: 10_000 },
		);
	});
});
