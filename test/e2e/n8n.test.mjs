// End-to-end: the built package inside real n8n (the runtime VMB_N8N names; 2.41.1 by default)
// against the local simulator.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import * as S from '../support/schemas.mjs';
import { waitFor } from './real-n8n.mjs';
import { sharedN8n, useSharedN8n } from './shared-n8n.mjs';
import {
	credentialFor,
	operationsWorkflow,
	pollWorkflows,
	readOnlyCredentialFor,
	triggerWorkflow,
} from './workflows.mjs';
import { exampleWorkflows, setUpExample, triggeredExamples } from './examples.mjs';
import { payloads, sign } from '../support/webhooks.mjs';

const MAILS = 2_500;
let sim;
let n8n;
let rest;
let session;
let filesFolder;
let polledScan;
const allExamples = exampleWorkflows();
const examples = triggeredExamples();
/** The filing-rules example with Preview Only on, under its own id and webhook path. */
const rulesPreview = (() => {
	const { workflow } = allExamples.find((e) => e.file === 'file-mail-by-rules.json');
	const copy = JSON.parse(JSON.stringify(workflow));
	copy.id = 'VmbRulesPreview1';
	copy.name = 'E2E: file mail by rules, preview only';
	const trigger = copy.nodes.find(
		(n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
	);
	trigger.webhookId = '0e2e0000-0000-4000-8000-00000000f11e';
	copy.nodes.find((n) => n.parameters.operation === 'applyRules').parameters.previewOnly = true;
	return { workflow: copy, path: `${trigger.webhookId}/webhook` };
})();
const triggers = {
	plain: triggerWorkflow({ id: 'VmbTriggerWf0001', name: 'E2E: trigger' }),
	// Saved at version 1, as workflows made before 1.1 are: they keep working.
	download: triggerWorkflow({
		id: 'VmbTriggerWf0002',
		name: 'E2E: trigger with download',
		options: { downloadFile: true, onlyCompleted: true },
		events: ['scan-update'],
		typeVersion: 1,
	}),
};

beforeAll(async () => {
	sim = await startSimulator({ count: MAILS, seed: 11 });
	// For the poll trigger test: a scan pending before the poll workflows are published, so the
	// first poll records it pending and a later one sees it complete.
	const mail = (
		await fetch(`${sim.url}/_control/mail`, {
			method: 'POST',
			body: JSON.stringify({ sender_name: 'Polling Bank' }),
		}).then((r) => r.json())
	).mail;
	polledScan = await fetch(`${sim.url}/_control/mails/${mail.id}/scan`, {
		method: 'POST',
		body: JSON.stringify({ type: 'scan' }),
	}).then((r) => r.json());
	const operations = operationsWorkflow();
	// n8n's default security settings: the examples run as a user sets them up, nothing relaxed.
	({ filesFolder } = await sharedN8n());
	session = await useSharedN8n({
		credentials: [credentialFor(sim), readOnlyCredentialFor(sim)],
		workflows: [
			operations,
			triggers.plain.workflow,
			triggers.download.workflow,
			...allExamples.map((e) => setUpExample(e.workflow, filesFolder)),
			rulesPreview.workflow,
			...pollWorkflows(),
		],
		waitForWebhooks: [
			'op/account-get',
			triggers.plain.path,
			triggers.download.path,
			...examples.map((e) => e.path),
			rulesPreview.path,
		],
	});
	({ n8n, rest } = session);
	// Activation of each trigger checks the key with GET /v1/account (webhook create()).
	await waitFor(
		async () => sim.requests.filter((r) => r.path === '/v1/account').length >= 2 + examples.length,
		30_000,
		() => false,
		'trigger activation checks',
	);
}, 900_000);

afterAll(async () => {
	await session?.release();
	await sim?.close();
}, 120_000);

const state = () => fetch(`${sim.url}/_control/state`).then((r) => r.json());
/** Run one operation's webhook in n8n; returns the action node's output items and the API requests it made. */
async function run(name, payload = {}) {
	const mine = () => sim.requests.filter((r) => r.key === 'full'); // poll workflows use the read-only key
	const before = mine().length;
	const response = await fetch(`${n8n.base}/webhook/op/${name}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(payload),
	});
	const text = await response.text();
	expect(response.status, text.slice(0, 500)).toBe(200);
	const items = JSON.parse(text);
	const raw = mine().slice(before);
	return {
		items: Array.isArray(items) ? items : [items],
		requests: raw.map((r) => `${r.method} ${r.path}`),
		raw,
	};
}

describe('the runtime and the credential in real n8n', () => {
	test('n8n runs the chosen runtime and loaded the package under its real type names', async () => {
		const settings = (await rest.call('GET', '/rest/settings')).data;
		expect(settings.versionCli).toBe(n8n.runtime.n8nVersion);
		const types = await rest.call('GET', '/types/nodes.json');
		const ours = [
			...new Set(
				types.filter((t) => t.name.startsWith('n8n-nodes-virtual-mailbox.')).map((t) => t.name),
			),
		].sort();
		// n8n adds an AI-tool variant of the action node (usableAsTool).
		expect(ours).toEqual(
			[
				'virtualMailbox',
				'virtualMailboxPollTrigger',
				'virtualMailboxTool',
				'virtualMailboxTrigger',
			].map((t) => `n8n-nodes-virtual-mailbox.${t}`),
		);
	});

	test('the credential test of the editor accepts the simulator key and rejects a wrong one with its message', async () => {
		// As the editor sends it: the stored credential with the fields being edited.
		const testCredential = async (apiKey) =>
			(
				await rest.call('POST', '/rest/credentials/test', {
					credentials: { ...credentialFor(sim), data: { ...credentialFor(sim).data, apiKey } },
				})
			).data;
		const before = sim.requests.length;
		expect(await testCredential(sim.apiKey)).toMatchObject({ status: 'OK' });
		const wrong = await testCredential('test_sk_wrong_key_for_the_test');
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/Authorization failed|401|invalid/i);
		// n8n's credential test sends the failing request more than once; every one with the key under test.
		// The active poll workflows poll meanwhile with the read-only key: not this test's requests.
		const [first, ...others] = sim.requests
			.slice(before)
			.filter((r) => r.key !== 'read-only')
			.map((r) => `${r.method} ${r.path} ${r.key}`);
		expect(first).toBe('GET /v1/account full');
		expect(others.length).toBeGreaterThan(0);
		expect(new Set(others)).toEqual(new Set(['GET /v1/account invalid']));
	});
});

describe('every operation of the action node in real n8n', () => {
	test('mail getAll with filters and Limit', async () => {
		const { items, raw } = await run('mail-getAll');
		expect(items).toHaveLength(30);
		items.forEach((item) => S.MailItem.parse(item));
		expect(
			items.every(
				(m) =>
					['inbox', 'archived'].includes(m.mail_status) &&
					['letter', 'package'].includes(m.mail_type),
			),
		).toBe(true);
		expect(raw).toHaveLength(1);
		expect(raw[0].query).toEqual({
			status: ['inbox', 'archived'],
			mail_type: ['letter', 'package'],
			sort: ['oldest'],
			limit: ['30'],
		});
	});

	test(`mail getAll Return All over ${MAILS} items equals the simulator's data exactly`, async () => {
		const { items, raw } = await run('mail-getAll-all');
		const expected = await fetch(`${sim.url}/_control/query`).then((r) => r.json());
		expect(items.map((m) => m.id)).toEqual(expected);
		// Read in parts from both ends (Max Parallel Requests 6): 100 per page, the whole's first
		// page, and at most two more per part; once (Confirm List Unchanged is off by default).
		const parts = new Set(
			raw
				.filter(
					(r) => r.query.status || r.query.mail_type || r.query.scan_status || r.query.is_read,
				)
				.map((r) => JSON.stringify({ ...r.query, cursor: 0, sort: 0 })),
		).size;
		expect(parts).toBeGreaterThan(1);
		expect(raw.length).toBeLessThanOrEqual(Math.ceil(expected.length / 100) + 1 + 2 * parts);
	});

	test('mail get and undiscard', async () => {
		const db = await state();
		const mail = db.mails[0];
		const got = await run('mail-get', { mailId: mail.id });
		expect(S.MailItemDetail.parse(got.items[0]).id).toBe(mail.id);
		expect(got.requests).toEqual([`GET /v1/mails/${mail.id}`]);
		const discarded = db.mails.find((m) => m.mail_status === 'discard_request');
		const undone = await run('mail-undiscard', { mailId: discarded.id });
		expect(undone.items[0]).toMatchObject({ id: discarded.id, mail_status: 'inbox' });
		expect(undone.requests).toEqual([`POST /v1/mails/${discarded.id}/undiscard`]);
	});

	test('scan get, getSummary, cancel and complete (sandbox)', async () => {
		const db = await state();
		const completed = db.scans.find((s) => s.status === 'COMPLETED');
		expect(S.Scan.parse((await run('scan-get', { scanId: completed.id })).items[0]).id).toBe(
			completed.id,
		);
		const summary = await run('scan-getSummary', { scanId: completed.id });
		expect(S.ScanSummary.parse(summary.items[0]).label).toBe(completed.label);
		const pending = db.scans.filter((s) => s.status === 'IN_PROCESS');
		const cancelled = await run('scan-cancel', { scanId: pending[0].id });
		expect(cancelled.items[0]).toMatchObject({ id: pending[0].id, status: 'CANCELLED' });
		expect(cancelled.requests).toEqual([`POST /v1/scans/${pending[0].id}/cancel`]);
		const done = await run('scan-complete', { scanId: pending[1].id });
		expect(done.items[0]).toMatchObject({ status: 'COMPLETED', label: 'Electric bill' });
		expect(JSON.parse(done.raw[0].body)).toEqual({
			label: 'Electric bill',
			summary: ['Amount due $84.20', 'Due 12 Dec'],
		});
	});

	test('shipment get', async () => {
		const shipment = (await state()).shipments[0];
		const { items, requests } = await run('shipment-get', { shipmentId: shipment.id });
		expect(S.Shipment.parse(items[0]).id).toBe(shipment.id);
		expect(requests).toEqual([`GET /v1/shipments/${shipment.id}`]);
	});

	test('folder create, update, getAll, delete', async () => {
		const created = (await run('folder-create', { name: 'E2E folder' })).items[0];
		expect(S.Folder.parse(created)).toMatchObject({ name: 'E2E folder', color: '#188038' });
		const updated = await run('folder-update', { folderId: created.id, name: 'E2E renamed' });
		expect(updated.items[0].name).toBe('E2E renamed');
		expect(JSON.parse(updated.raw[0].body)).toEqual({ name: 'E2E renamed' });
		const all = await run('folder-getAll');
		expect(all.items.map((f) => f.name)).toContain('E2E renamed');
		const deleted = await run('folder-delete', { folderId: created.id });
		expect(deleted.items[0]).toEqual({ id: created.id, deleted: true });
		expect(deleted.requests).toEqual([`DELETE /v1/folders/${created.id}`]);
	});

	test('address create and getDefault', async () => {
		const created = await run('address-create');
		expect(S.Address.parse(created.items[0])).toMatchObject({
			type: 'shipping',
			line2: 'Flat 2',
			postal_code: 'NW1 6XE',
		});
		const def = await run('address-getDefault');
		expect(def.items[0]).toMatchObject({ type: 'deposit', is_default: true });
		expect(def.raw[0].query).toEqual({ type: ['deposit'] });
	});

	test('bank account create, update, getAll: the number never comes back', async () => {
		const created = await run('bankAccount-create', { accountNumber: '111122223333' });
		expect(S.BankAccount.parse(created.items[0]).account_number_last4).toBe('3333');
		const updated = await run('bankAccount-update', { bankAccountId: created.items[0].id });
		expect(updated.items[0].bank_name).toBe('First Bank of NY');
		const all = await run('bankAccount-getAll');
		expect(all.items.length).toBeGreaterThanOrEqual(3);
		const executions = await rest.executions('VmbOperationsWf1');
		const details = await Promise.all(executions.slice(0, 5).map((e) => rest.execution(e.id)));
		// What the node returned and what n8n stored as its output (the Webhook node's input holds the
		// number the test itself sent, so it is not part of this check).
		const outputs = details.flatMap((d) =>
			Object.entries(d.data?.resultData?.runData ?? {})
				.filter(([name]) => name.startsWith('VM '))
				.map(([, runs]) => runs),
		);
		expect(outputs.length).toBeGreaterThan(0);
		expect(JSON.stringify([created.items, updated.items, all.items, outputs])).not.toContain(
			'111122223333',
		);
	});

	test('account get and getMailingAddress', async () => {
		S.Account.parse((await run('account-get')).items[0]);
		S.MailingAddress.parse((await run('account-getMailingAddress')).items[0]);
	});

	test('execution data in n8n holds the same items the node returned', async () => {
		const mail = (await state()).mails[3];
		const { items } = await run('mail-get', { mailId: mail.id });
		let execution;
		await waitFor(async () => {
			const list = await rest.executions('VmbOperationsWf1');
			execution = await rest.execution(list[0].id);
			return execution.data?.resultData?.runData?.['VM mail-get'] !== undefined;
		}, 20_000);
		const output = execution.data.resultData.runData['VM mail-get'][0].data.main[0];
		expect(output.map((i) => i.json)).toEqual(items);
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('webhook trigger in real n8n', () => {
	const executionsOf = async (workflowId) => (await rest.executions(workflowId)).length;
	const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
	const deliver = (body) =>
		fetch(`${sim.url}/_control/deliver`, { method: 'POST', body: JSON.stringify(body) }).then((r) =>
			r.json(),
		);

	test('exactly one execution per valid signed delivery of each event kind; none for forged, tampered, stale or duplicate ones', async () => {
		const url = `${n8n.base}/webhook/${triggers.plain.path}`;
		const db = await state();
		const subjects = {
			'new-mail': db.mails[0].id,
			'scan-update': db.scans.find((s) => s.type === 'SCAN_REQUEST').id,
			'open-update': db.scans.find((s) => s.type === 'UNBOXING_REQUEST').id,
			'shipment-update': db.shipments[0].id,
		};
		const statuses = {};
		for (const [event, id] of Object.entries(subjects)) {
			const result = await deliver({ event, id, url, variant: 'valid' });
			statuses[`${event} valid`] = result.deliveries[0].status;
		}
		await waitFor(async () => (await executionsOf('VmbTriggerWf0001')) === 4, 30_000);
		for (const variant of ['forged', 'tampered', 'stale', 'future', 'unsigned']) {
			const result = await deliver({ event: 'new-mail', id: db.mails[1].id, url, variant });
			statuses[`new-mail ${variant}`] = result.deliveries[0].status;
		}
		for (const [event, id] of Object.entries(subjects)) {
			const result = await deliver({ event, id, url, variant: 'valid' });
			statuses[`${event} duplicate`] = result.deliveries[0].status;
		}
		await settle();
		expect(statuses).toEqual({
			'new-mail valid': 200,
			'scan-update valid': 200,
			'open-update valid': 200,
			'shipment-update valid': 200,
			'new-mail forged': 401,
			'new-mail tampered': 401,
			'new-mail stale': 401,
			'new-mail future': 401,
			'new-mail unsigned': 401,
			'new-mail duplicate': 200,
			'scan-update duplicate': 200,
			'open-update duplicate': 200,
			'shipment-update duplicate': 200,
		});
		const executions = await rest.executions('VmbTriggerWf0001');
		expect(executions).toHaveLength(4);
		const events = [];
		for (const e of executions) {
			const detail = await rest.execution(e.id);
			events.push(
				detail.data.resultData.runData['Virtual Mailbox Trigger'][0].data.main[0][0].json.event,
			);
		}
		expect(events.sort()).toEqual(['new-mail', 'open-update', 'scan-update', 'shipment-update']);
	});

	test('junk that does not verify starts nothing, whatever its content type or size (no failed execution either)', async () => {
		const url = `${n8n.base}/webhook/${triggers.plain.path}`;
		const before = await executionsOf('VmbTriggerWf0001');
		const form = new FormData();
		form.append('id', '1');
		form.append('file', new Blob([Buffer.alloc(1024, 7)]), 'x.bin');
		const junk = {
			multipart: { body: form },
			urlencoded: {
				body: 'id=1&mail_status=INBOX',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
			},
			text: { body: 'hello', headers: { 'content-type': 'text/plain' } },
			'20 MB octet-stream': {
				body: Buffer.alloc(20 * 1024 * 1024, 1),
				headers: { 'content-type': 'application/octet-stream' },
			},
		};
		const statuses = {};
		for (const [name, init] of Object.entries(junk)) {
			const response = await fetch(url, { method: 'POST', ...init });
			await response.arrayBuffer();
			statuses[name] = response.status;
		}
		for (const [name, status] of Object.entries(statuses))
			expect([400, 401, 413], `${name} → ${status}`).toContain(status);
		await settle();
		expect(await executionsOf('VmbTriggerWf0001')).toBe(before);
	});

	test('from version 1.1 n8n leaves the body unparsed for a Content-Type it does not know: the node still verifies and starts the workflow', async () => {
		const url = `${n8n.base}/webhook/${triggers.plain.path}`;
		const before = await executionsOf('VmbTriggerWf0001');
		const raw = Buffer.from(
			JSON.stringify({
				id: 990001,
				mail_type: 'LETTER',
				mail_status: 'INBOX',
				weight: '0.10',
				measurement: { width: '9.50', height: '4.10', length: '0.20' },
				recipient_name: 'Ada Lovelace',
				sender_name: 'Octet Stream Ltd',
				image_url: `${sim.url}/files/envelopes/990001.jpg`,
				message: 'New letter from Octet Stream Ltd',
			}),
		);
		const ts = String(Date.now());
		const signature = crypto
			.createHmac('sha256', sim.webhookSecret)
			.update(`${ts}.`)
			.update(raw)
			.digest('hex');
		const headers = {
			'content-type': 'application/octet-stream',
			'usgm-webhook-timestamp': ts,
			'usgm-webhook-signature': signature,
		};
		const response = await fetch(url, { method: 'POST', headers, body: raw });
		expect(response.status).toBe(200);
		await waitFor(async () => (await executionsOf('VmbTriggerWf0001')) === before + 1, 30_000);
		const forged = await fetch(url, {
			method: 'POST',
			headers: { ...headers, 'usgm-webhook-signature': '0'.repeat(64) },
			body: raw,
		});
		expect(forged.status).toBe(401);
		await settle();
		expect(await executionsOf('VmbTriggerWf0001')).toBe(before + 1);
	});

	test('a completed scan arrives with its PDF attached as binary data', async () => {
		const url = `${n8n.base}/webhook/${triggers.download.path}`;
		await fetch(`${sim.url}/_control/webhooks`, {
			method: 'POST',
			body: JSON.stringify({ event: 'scan-update', url }),
		});
		const pending = (await state()).scans.find(
			(s) => s.type === 'SCAN_REQUEST' && s.status === 'IN_PROCESS',
		);
		await fetch(`${sim.url}/_control/scans/${pending.id}/status`, {
			method: 'POST',
			body: JSON.stringify({ status: 'IN_PROCESS' }),
		});
		const done = await fetch(`${sim.url}/_control/scans/${pending.id}/status`, {
			method: 'POST',
			body: JSON.stringify({ status: 'COMPLETED', label: 'Tax form' }),
		}).then((r) => r.json());
		expect(done.deliveries.map((d) => d.status)).toEqual([200]);
		await waitFor(async () => (await executionsOf('VmbTriggerWf0002')) === 1, 30_000);
		await settle();
		const [execution] = await rest.executions('VmbTriggerWf0002');
		expect(await executionsOf('VmbTriggerWf0002')).toBe(1); // the IN_PROCESS update started nothing (Only Completed)
		const item = (await rest.execution(execution.id)).data.resultData.runData[
			'Virtual Mailbox Trigger'
		][0].data.main[0][0];
		expect(item.json).toMatchObject({
			event: 'scan-update',
			uuid: pending.id,
			current_status: 'COMPLETED',
			ai_label: 'Tax form',
		});
		expect(item.binary.data).toMatchObject({
			mimeType: 'application/pdf',
			fileName: `${pending.id}.pdf`,
			fileExtension: 'pdf',
		});
	});
});

describe('the example workflows in real n8n (examples/*.json)', () => {
	test('every example imports, and n8n knows each node type and version in it (the AI agent one included)', async () => {
		const known = new Map();
		for (const type of await rest.call('GET', '/types/nodes.json')) {
			for (const version of [type.version].flat()) known.set(`${type.name}@${version}`, true);
		}
		expect(allExamples.length).toBeGreaterThanOrEqual(4);
		for (const { workflow } of allExamples) {
			const stored = (await rest.call('GET', `/rest/workflows/${workflow.id}`)).data;
			expect(stored.nodes.map((n) => n.name).sort()).toEqual(
				workflow.nodes.map((n) => n.name).sort(),
			);
			for (const node of workflow.nodes)
				expect(
					known.has(`${node.type}@${node.typeVersion}`),
					`${workflow.name}: ${node.type}@${node.typeVersion}`,
				).toBe(true);
		}
		const agent = allExamples.find((e) =>
			e.workflow.nodes.some((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTool'),
		);
		expect(agent).toBeDefined();
	});

	const executionsOf = async (workflowId) => rest.executions(workflowId);
	const add = (body) =>
		fetch(`${sim.url}/_control/mail`, { method: 'POST', body: JSON.stringify(body) }).then((r) =>
			r.json(),
		);
	/** The service's subscriptions: only these examples get deliveries (two filing examples would file the same mail). */
	const subscribeOnly = async (files) => {
		await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
		for (const example of examples.filter((e) => files.includes(e.file))) {
			for (const event of example.events) {
				await fetch(`${sim.url}/_control/webhooks`, {
					method: 'POST',
					body: JSON.stringify({ event, url: `${n8n.base}/webhook/${example.path}` }),
				});
			}
		}
	};
	/**
	 * Waits until a workflow has `count` executions and every one has ended. A delivery is answered
	 * when the execution starts, and n8n lists an execution while it runs: counting alone would read
	 * the mailbox before the last execution's requests.
	 */
	const executionsEnded = (workflowId, count) =>
		waitFor(
			async () => {
				const executions = await executionsOf(workflowId);
				return (
					executions.length === count &&
					executions.every((e) => !['new', 'running', 'waiting'].includes(e.status))
				);
			},
			60_000,
			() => false,
			`${count} ended executions of ${workflowId}`,
		);
	/** The items a node of an example output, over every execution of it. */
	const outputsOf = async (workflowId, node) => {
		const out = [];
		for (const e of await executionsOf(workflowId)) {
			const run = (await rest.execution(e.id)).data.resultData.runData;
			if (run[node]) out.push(...run[node][0].data.main[0].map((i) => i.json));
		}
		return out;
	};

	test('every example is set up for a default n8n: trigger version 2 with pinned sample data in its shape, a sticky note, no $env', () => {
		for (const { file, workflow } of allExamples) {
			expect(
				workflow.nodes.some(
					(n) => n.type === 'n8n-nodes-base.stickyNote' && /Set up/.test(n.parameters.content),
				),
				file,
			).toBe(true);
			expect(JSON.stringify(workflow), file).not.toMatch(/\$env/);
			const trigger = workflow.nodes.find(
				(n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
			);
			if (!trigger) continue;
			expect(trigger.typeVersion, file).toBe(2);
			const sample = workflow.pinData[trigger.name];
			expect(sample.length, file).toBeGreaterThan(0);
			for (const { json } of sample) expect(typeof json.id, file).toBe('string');
		}
	});

	test('new mail from a sender is filed into a folder of that name (created once) and marked read; packages raise an alert', async () => {
		await subscribeOnly(['file-new-mail-by-sender.json', 'package-arrived-alert.json']);
		const sender = 'Acme Insurance Claims';
		const first = await add({ sender_name: sender, mail_type: 'package' });
		const second = await add({ sender_name: sender });
		expect(first.deliveries.map((d) => d.status)).toEqual([200, 200]);
		await waitFor(async () => {
			const db = await state();
			return [first.mail.id, second.mail.id].every(
				(id) => db.mails.find((m) => m.id === id)?.folder_id,
			);
		}, 30_000);
		const db = await state();
		const folders = db.folders.filter((f) => f.name === sender);
		expect(folders).toHaveLength(1);
		for (const id of [first.mail.id, second.mail.id])
			expect(db.mails.find((m) => m.id === id)).toMatchObject({
				folder_id: folders[0].id,
				is_read: true,
			});
		await executionsEnded('VmbExamplePack01', 2);
		// The alert compares mail_type with "package", the value the version-2 trigger outputs.
		expect(await outputsOf('VmbExamplePack01', 'Alert the team')).toEqual([
			{
				alert: expect.stringMatching(
					new RegExp(`^Package from ${sender} for Ada Lovelace \\(2\\.5 lb\\)`),
				),
				mail_id: first.mail.id,
			},
		]);
	});

	test('filing rules in one node: IRS letters into Taxes, magazines and catalogs into Magazines (created once), bank mail into Banks marked read, the rest left alone', async () => {
		await subscribeOnly(['file-mail-by-rules.json']);
		const mails = {
			irs: (await add({ sender_name: 'IRS Ogden UT' })).mail,
			first: (await add({ sender_name: 'First Federal Credit' })).mail,
			magazine: (await add({ sender_name: 'Wired', mail_type: 'magazine' })).mail,
			catalog: (await add({ sender_name: 'Costco', mail_type: 'catalog' })).mail,
			bank: (await add({ sender_name: 'Chase Bank' })).mail,
			magazine2: (await add({ sender_name: 'The Atlantic', mail_type: 'magazine' })).mail,
		};
		const find = (db, mail) => db.mails.find((m) => m.id === mail.id);
		await executionsEnded('VmbExampleRules2', 6);
		const db = await state();
		const folder = (name) => {
			const found = db.folders.filter((f) => f.name === name);
			expect(found, name).toHaveLength(1);
			return found[0].id;
		};
		expect(find(db, mails.irs)).toMatchObject({ folder_id: folder('Taxes'), is_read: false });
		expect(find(db, mails.magazine)).toMatchObject({
			folder_id: folder('Magazines'),
			is_read: false,
		});
		expect(find(db, mails.catalog)).toMatchObject({ folder_id: folder('Magazines') });
		expect(find(db, mails.magazine2)).toMatchObject({ folder_id: folder('Magazines') });
		expect(find(db, mails.bank)).toMatchObject({ folder_id: folder('Banks'), is_read: true });
		// "IRS" is inside "First", but the rule asks for the word.
		expect(find(db, mails.first)).toMatchObject({ folder_id: null, is_read: false });
		const decisions = await outputsOf('VmbExampleRules2', 'File by rules');
		expect(decisions.find((d) => d.mail_id === mails.irs.id)).toMatchObject({
			matched_rule: 1,
			rule_name: 'Taxes',
			decision: 'Filed into "Taxes"',
		});
		expect(decisions.find((d) => d.mail_id === mails.first.id)).toMatchObject({
			matched_rule: null,
			decision: 'No rule matched: left unchanged',
		});
	});

	test('filing rules with Preview Only: the decisions are output and the mailbox is unchanged, no folder created', async () => {
		await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
		await fetch(`${sim.url}/_control/webhooks`, {
			method: 'POST',
			body: JSON.stringify({ event: 'new-mail', url: `${n8n.base}/webhook/${rulesPreview.path}` }),
		});
		const before = await state();
		const mark = sim.requests.length;
		const catalog = (await add({ sender_name: 'Preview Outfitters', mail_type: 'catalog' })).mail;
		await executionsEnded('VmbRulesPreview1', 1);
		const writes = sim.requests.slice(mark).filter((r) => r.method !== 'GET');
		const after = await state();
		expect(after.folders).toEqual(before.folders);
		expect(after.mails.find((m) => m.id === catalog.id)).toMatchObject({
			folder_id: null,
			is_read: false,
			mail_status: 'inbox',
		});
		expect(writes).toEqual([]);
		expect(await outputsOf('VmbRulesPreview1', 'File by rules')).toEqual([
			expect.objectContaining({
				mail_id: catalog.id,
				preview: true,
				matched_rule: 2,
				decision: expect.stringMatching(/^Would file into "Magazines"/),
			}),
		]);
	});

	test('filing rules with a Switch: bank and utility mail filed into named folders (created once) and marked read, packages filed and alerted, the rest left alone', async () => {
		await subscribeOnly(['branch-mail-by-rules-with-switch.json']);
		const mails = {
			bank: (await add({ sender_name: 'First National Bank' })).mail,
			bills: (await add({ sender_name: 'City Utilities', mail_type: 'large_letter' })).mail,
			pkg: (await add({ sender_name: 'Parts Shop', mail_type: 'package' })).mail,
			other: (await add({ sender_name: 'Grandma' })).mail,
			bank2: (await add({ sender_name: 'Wells Fargo' })).mail,
		};
		const find = (db, mail) => db.mails.find((m) => m.id === mail.id);
		await executionsEnded('VmbExampleRules1', 5);
		const db = await state();
		const folder = (name) => {
			const found = db.folders.filter((f) => f.name === name);
			expect(found, name).toHaveLength(1);
			return found[0].id;
		};
		expect(find(db, mails.bank)).toMatchObject({ folder_id: folder('Banks'), is_read: true });
		expect(find(db, mails.bank2)).toMatchObject({ folder_id: folder('Banks'), is_read: true });
		expect(find(db, mails.bills)).toMatchObject({ folder_id: folder('Bills'), is_read: true });
		expect(find(db, mails.pkg)).toMatchObject({ folder_id: folder('Packages'), is_read: false });
		expect(find(db, mails.other)).toMatchObject({ folder_id: null, is_read: false });
		expect(await outputsOf('VmbExampleRules1', 'Alert: package arrived')).toEqual([
			{
				alert: expect.stringMatching(/^Package from Parts Shop for Ada Lovelace/),
				mail_id: mails.pkg.id,
			},
		]);
	});

	test('a completed scan is saved as a PDF file in ~/.n8n-files, where a default n8n 2.x lets workflows write', async () => {
		await subscribeOnly(['save-completed-scans.json']);
		// A scan of its own (the poll trigger's test completes the one requested before n8n started).
		const mail = (await add({ sender_name: 'Scan Savers Inc' })).mail;
		const pending = await fetch(`${sim.url}/_control/mails/${mail.id}/scan`, {
			method: 'POST',
			body: JSON.stringify({ type: 'scan' }),
		}).then((r) => r.json());
		await fetch(`${sim.url}/_control/scans/${pending.id}/status`, {
			method: 'POST',
			body: JSON.stringify({ status: 'COMPLETED' }),
		});
		const file = path.join(filesFolder, `${pending.id}.pdf`);
		await waitFor(async () => fs.existsSync(file) && fs.statSync(file).size > 0, 30_000);
		expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
	});
});

describe('poll trigger in real n8n (polls once a minute)', () => {
	const outputOf = async (workflowId, node) => {
		const out = [];
		for (const e of await rest.executions(workflowId)) {
			const run = (await rest.execution(e.id)).data?.resultData?.runData?.[node];
			if (run) out.push(...run[0].data.main[0]);
		}
		return out;
	};
	const control = (url, body) =>
		fetch(`${sim.url}/_control${url}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then(
			(r) => r.json(),
		);

	test('after the first poll records where things stand, a new package and a completed scan each start one execution; the scan file is downloaded', async () => {
		// the scan was requested before the poll workflows were published (beforeAll), so the first poll sees it pending;
		// each trigger's first poll (at activation) primes: the scans of its type, the whole mailbox
		const polled = (match) => sim.requests.some((r) => r.key === 'read-only' && match(r));
		await waitFor(
			async () =>
				polled((r) => r.path === '/v1/scans' && r.query.type) &&
				polled(
					(r) => r.path === '/v1/mails' && r.query.sort?.[0] === 'newest' && !r.query.mail_type,
				),
			90_000,
		);
		const pkg = (await control('/mail', { sender_name: 'Poll Shop', mail_type: 'package' })).mail;
		await control('/mail', { sender_name: 'Poll Letter' });
		await control(`/scans/${polledScan.id}/status`, { status: 'COMPLETED' });
		await waitFor(async () => {
			const mails = await outputOf('VmbPollNewMail01', 'Poll new mail');
			const downloads = await outputOf('VmbPollScans0001', 'Download scan');
			return (
				mails.some((i) => i.json.id === pkg.id) &&
				downloads.some((i) => i.json.scan_id === polledScan.id)
			);
		}, 90_000);
		const mails = (await outputOf('VmbPollNewMail01', 'Poll new mail')).map((i) => i.json);
		// No flood: nothing of the seeded mailbox, only packages that arrived later, each once.
		expect(
			mails.every(
				(m) =>
					Number(m.id) >= 100000 + MAILS && m.mail_type === 'package' && m.event === 'new-mail',
			),
		).toBe(true);
		expect(new Set(mails.map((m) => m.id)).size).toBe(mails.length);
		const downloads = await outputOf('VmbPollScans0001', 'Download scan');
		expect(new Set(downloads.map((i) => i.json.scan_id)).size).toBe(downloads.length);
		const ours = downloads.find((i) => i.json.scan_id === polledScan.id);
		expect(ours.binary.data).toMatchObject({
			mimeType: 'application/pdf',
			fileName: `${polledScan.id}.pdf`,
		});
	}, 240_000);
});

describe('across a restart of n8n', () => {
	test("a delivery replayed after n8n restarts does not run the workflow again (the claim is in n8n's database)", async () => {
		const url = () => `${n8n.base}/webhook/${triggers.plain.path}`;
		const body = { ...payloads['new-mail'], id: 880_001 };
		const first = sign(body, { secret: sim.webhookSecret });
		expect(
			(await fetch(url(), { method: 'POST', headers: first.headers, body: first.raw })).status,
		).toBe(200);
		const delivered = async () => {
			const out = [];
			for (const e of await rest.executions('VmbTriggerWf0001')) {
				const items =
					(await rest.execution(e.id)).data?.resultData?.runData?.['Virtual Mailbox Trigger']?.[0]
						?.data?.main?.[0] ?? [];
				out.push(...items.filter((i) => i.json.id === body.id));
			}
			return out.length;
		};
		await waitFor(async () => (await delivered()) === 1, 30_000);
		await session.restart({ waitForWebhooks: [triggers.plain.path] });
		({ n8n, rest } = session);
		const replay = sign(body, { secret: sim.webhookSecret });
		expect(
			(await fetch(url(), { method: 'POST', headers: replay.headers, body: replay.raw })).status,
		).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 3000));
		await waitFor(
			async () =>
				(await rest.executions('VmbTriggerWf0001')).every(
					(e) => e.status !== 'running' && e.status !== 'new',
				),
			30_000,
		);
		expect(await delivered()).toBe(1);
	}, 180_000);
});
