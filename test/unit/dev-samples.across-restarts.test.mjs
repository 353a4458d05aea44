// `npm run dev` keeps n8n's data between runs (the published examples, their static data and
// n8n's deduplication store) but starts a fresh simulator each time, seeded as test/dev.mjs seeds
// it (500 mails, seed 42). The dev command prints the same samples every run. A newcomer who
// stops `npm run dev`, starts it again and logs the printed package sample has logged a new mail
// item: the package alert must run again, not take it for a copy of yesterday's delivery.
import { expect, test } from 'vitest';
import nock from 'nock';
import { dist, runDelivery } from '../harness/n8n-core-harness.mjs';
import { startSimulator } from '../simulator/server.mjs';
import { WebhookSender } from '../simulator/webhooks.mjs';
import { DEV_SAMPLES } from '../e2e/examples.mjs';
import { request } from '../support/webhooks.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

/** One `npm run dev` session: a fresh simulator as dev.mjs starts it, the first sample logged. */
async function sessionLogsPackageSample() {
	const sim = await startSimulator({ count: 500, seed: 42 });
	try {
		const sample = DEV_SAMPLES.find((s) => s.body.mail_type === 'package');
		const { mail } = await (await fetch(`${sim.url}/_control/mail`, { method: 'POST', body: JSON.stringify(sample.body) })).json();
		return { mail, payload: new WebhookSender(sim.mailbox, sim.webhookSecret).payload('new-mail', sim.mailbox.mailById(mail.id)) };
	} finally {
		await sim.close();
	}
}

test('the package sample logged after npm run dev restarts reaches the published package alert again', async () => {
	nock.enableNetConnect('127.0.0.1');
	// n8n's saved state of the published workflow, kept across runs.
	const staticData = {};
	const deliver = async (payload, executionId) =>
		await runDelivery({ parameters: { events: ['new-mail'], options: {} }, request: request(payload), staticData, workflowId: 'wf-package-alert', executionId, typeVersion: 2 });

	const first = await sessionLogsPackageSample();
	const second = await sessionLogsPackageSample();
	// Two sessions, two mail items the user logged (the simulator reuses the id).
	expect((await deliver(first.payload, '1')).items).toHaveLength(1);
	recentDeliveries.clear();
	const again = await deliver(second.payload, '2');
	expect(again.result.webhookResponse?.ignored, `mail ${second.mail.id} of the second session`).toBeUndefined();
	expect(again.items).toHaveLength(1);
});

test("the package sample logged after a restart runs even where n8n did not keep the webhook's static data (its deduplication store decides)", async () => {
	nock.enableNetConnect('127.0.0.1');
	const deliver = async (payload, executionId) =>
		await runDelivery({ parameters: { events: ['new-mail'], options: {} }, request: request(payload), staticData: {}, workflowId: 'wf-package-alert-store', executionId, typeVersion: 2 });
	const first = await sessionLogsPackageSample();
	const second = await sessionLogsPackageSample();
	expect((await deliver(first.payload, '1')).items).toHaveLength(1);
	// n8n restarted: its memory is gone; its database (the deduplication store) is not.
	recentDeliveries.clear();
	expect((await deliver(second.payload, '2')).items).toHaveLength(1);
});
