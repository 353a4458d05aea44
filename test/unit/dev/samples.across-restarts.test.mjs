// `npm run dev` keeps n8n's data between runs (the published examples, their static data and
// n8n's deduplication store) but starts a fresh simulator each time, seeded as test/dev.mjs seeds
// it (500 mails, seed 42, the next session of its home). The dev command prints the same samples every run. A newcomer who
// stops `npm run dev`, starts it again and logs the printed package sample has logged a new mail
// item: the package alert must run again, not take it for a copy of yesterday's delivery.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import nock from 'nock';
import { dist, runDelivery } from '../../harness/n8n-core-harness.mjs';
import { startSimulator } from '../../simulator/server.mjs';
import { devSimulatorOptions } from '../../simulator/dev-session.mjs';
import { WebhookSender } from '../../simulator/webhooks.mjs';
import { DEV_SAMPLES } from '../../e2e/examples.mjs';
import { request } from '../../support/webhooks.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

const homes = [];
afterAll(() => {
	for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});
/** A dev home, as VMB_DEV_HOME names one. */
const devHome = () => {
	homes.push(fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-home-')));
	return homes.at(-1);
};

/** One `npm run dev` session of the dev home `home`: a fresh simulator as dev.mjs starts it, the first sample logged. */
async function sessionLogsPackageSample(home) {
	const sim = await startSimulator(devSimulatorOptions(home));
	try {
		const sample = DEV_SAMPLES.find((s) => s.body.mail_type === 'package');
		const { mail } = await (
			await fetch(`${sim.url}/_control/mail`, { method: 'POST', body: JSON.stringify(sample.body) })
		).json();
		return {
			mail,
			payload: new WebhookSender(sim.mailbox, sim.webhookSecret).payload(
				'new-mail',
				sim.mailbox.mailById(mail.id),
			),
		};
	} finally {
		await sim.close();
	}
}

test('the package sample logged after npm run dev restarts reaches the published package alert again', async () => {
	nock.enableNetConnect('127.0.0.1');
	// n8n's saved state of the published workflow, kept across runs.
	const staticData = {};
	const deliver = async (payload, executionId) =>
		await runDelivery({
			parameters: { events: ['new-mail'], options: {} },
			request: request(payload),
			staticData,
			workflowId: 'wf-package-alert',
			executionId,
			typeVersion: 2,
		});

	const home = devHome();
	const first = await sessionLogsPackageSample(home);
	const second = await sessionLogsPackageSample(home);
	expect(second.mail.id).not.toBe(first.mail.id);
	// Two sessions, two mail items the user logged (each with its own id).
	expect((await deliver(first.payload, '1')).items).toHaveLength(1);
	recentDeliveries.clear();
	const again = await deliver(second.payload, '2');
	expect(
		again.result.webhookResponse?.ignored,
		`mail ${second.mail.id} of the second session`,
	).toBeUndefined();
	expect(again.items).toHaveLength(1);
});

test("the package sample logged after a restart runs even where n8n did not keep the webhook's static data (its deduplication store decides)", async () => {
	nock.enableNetConnect('127.0.0.1');
	const deliver = async (payload, executionId) =>
		await runDelivery({
			parameters: { events: ['new-mail'], options: {} },
			request: request(payload),
			staticData: {},
			workflowId: 'wf-package-alert-store',
			executionId,
			typeVersion: 2,
		});
	const home = devHome();
	const first = await sessionLogsPackageSample(home);
	const second = await sessionLogsPackageSample(home);
	expect((await deliver(first.payload, '1')).items).toHaveLength(1);
	// n8n restarted: its memory is gone; its database (the deduplication store) is not.
	recentDeliveries.clear();
	expect((await deliver(second.payload, '2')).items).toHaveLength(1);
});

test('scans requested, and seeded scans completed, after npm run dev restarts have ids no earlier session of the dev home delivered', async () => {
	const home = devHome();
	const session = async () => {
		const sim = await startSimulator(devSimulatorOptions(home));
		try {
			const letter = sim.mailbox.db.mails.find((m) => m.mail_type === 'letter' && !m.scan);
			const requested = sim.mailbox.createScan(letter, 'SCAN_REQUEST');
			const seededInProcess = sim.mailbox.db.scans.find(
				(s) => s.status === 'IN_PROCESS' && s.id !== requested.id,
			);
			return {
				letter: letter.id,
				requested: requested.id,
				seeded: seededInProcess.mail_id,
				seededScan: seededInProcess.id,
				mails: sim.mailbox.db.mails.map((m) => `${m.id} ${m.sender_name} ${m.mail_type}`),
			};
		} finally {
			await sim.close();
		}
	};
	const first = await session();
	const second = await session();
	// The same seeded mailbox (the mail a newcomer sees and the samples `npm run dev` prints are the same)...
	expect(second.mails).toEqual(first.mails);
	expect([second.letter, second.seeded]).toEqual([first.letter, first.seeded]);
	// ...with scan ids of its own.
	expect(second.requested).not.toBe(first.requested);
	expect(second.seededScan).not.toBe(first.seededScan);
});

test('the simulator the tests start (no session) keeps its seeded ids', async () => {
	const a = await startSimulator({ count: 50, seed: 42 });
	const b = await startSimulator({ count: 50, seed: 42 });
	try {
		expect(b.mailbox.db.scans.map((s) => s.id)).toEqual(a.mailbox.db.scans.map((s) => s.id));
		expect(
			b.mailbox.createScan(
				b.mailbox.db.mails.find((m) => m.mail_type === 'letter'),
				'SCAN_REQUEST',
			).id,
		).toBe(
			a.mailbox.createScan(
				a.mailbox.db.mails.find((m) => m.mail_type === 'letter'),
				'SCAN_REQUEST',
			).id,
		);
		expect(b.mailbox.addMail().id).toBe(a.mailbox.addMail().id);
	} finally {
		await a.close();
		await b.close();
	}
});
