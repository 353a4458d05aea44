// The examples hold pinned sample items on their trigger, so Execute workflow runs before the first
// delivery. In `npm run dev` those items' ids must name simulator mail with exactly that content:
// clicking Execute workflow on "file mail by rules" files the IRS letter it shows into Taxes, never
// a Blue Cross Health package that happens to have the same id into Magazines. Each Virtual Mailbox
// node of each example runs here over its example's pinned items, through n8n-core, against the
// simulator as `npm run dev` starts it (a later session of a dev home), and every mail item and
// scan a request touches must be the one a pinned item describes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runNode, TYPES } from '../../harness/n8n-core-harness.mjs';
import { startSimulator } from '../../simulator/server.mjs';
import { devSimulatorOptions } from '../../simulator/dev-session.mjs';
import { exampleWorkflows } from '../../e2e/examples.mjs';

let sim;
let home;
beforeAll(async () => {
	nock.enableNetConnect('127.0.0.1');
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-home-'));
	devSimulatorOptions(home); // an earlier session of the dev home: this one is its second
	sim = await startSimulator(devSimulatorOptions(home));
});
afterAll(async () => {
	await sim?.close();
	fs.rmSync(home, { recursive: true, force: true });
});

const pinnedExamples = exampleWorkflows().filter(({ workflow }) =>
	Object.values(workflow.pinData ?? {}).some((items) => items.length),
);
/** The ones with Virtual Mailbox nodes after the trigger (the package alert only builds a text). */
const actingExamples = pinnedExamples.filter(({ workflow }) =>
	workflow.nodes.some((n) => n.type === TYPES.action),
);

test('there are examples with pinned items on a Virtual Mailbox Trigger and Virtual Mailbox nodes after it', () => {
	expect(actingExamples.map((e) => e.file)).toEqual(
		expect.arrayContaining(['file-mail-by-rules.json', 'save-completed-scans.json']),
	);
});

for (const { file, workflow } of actingExamples) {
	test(`${file}: running its Virtual Mailbox nodes over the pinned items touches only the mail and scans they describe`, async () => {
		const pinned = Object.values(workflow.pinData)
			.flat()
			.map((i) => i.json);
		// What each pinned item says of its mail item: by mail id.
		const described = new Map();
		for (const item of pinned) {
			const mailId = item.event === 'new-mail' ? item.id : item.mail_id;
			described.set(mailId, { sender_name: item.sender_name, mail_type: item.mail_type });
		}
		const actions = workflow.nodes.filter((n) => n.type === TYPES.action);
		expect(actions.length, file).toBeGreaterThan(0);
		const credentials = {
			environment: 'custom',
			baseUrl: sim.url,
			apiKey: sim.apiKey,
			webhookSecret: sim.webhookSecret,
			previousWebhookSecret: '',
		};
		for (const node of actions) {
			sim.requests.length = 0;
			// Every pinned item through every node (a superset of what a Switch would route to it).
			const { items, error } = await runNode({
				parameters: node.parameters,
				typeVersion: node.typeVersion,
				items: pinned,
				credentials,
			});
			expect(error, `${file} → ${node.name}: ${error?.message}`).toBeUndefined();
			expect(items.length, `${file} → ${node.name}`).toBe(pinned.length);
			const touched = sim.requests.filter((r) => /^\/v1\/(mails|scans)\/[^/]+/.test(r.path));
			expect(
				touched.length,
				`${file} → ${node.name} sent no request about a mail item`,
			).toBeGreaterThan(0);
			for (const request of touched) {
				expect(request.status, `${request.method} ${request.path}`).toBeLessThan(400);
				const [, kind, id] = /^\/v1\/(mails|scans)\/([^/]+)/.exec(request.path);
				const mailId =
					kind === 'mails'
						? id
						: sim.db.scans.find((s) => s.id === decodeURIComponent(id))?.mail_id;
				expect(
					described.has(mailId),
					`${file} → ${node.name}: ${request.method} ${request.path} is about mail item ${mailId}, which no pinned item describes`,
				).toBe(true);
				const mail = sim.db.mails.find((m) => m.id === mailId);
				expect(
					{ sender_name: mail?.sender_name, mail_type: mail?.mail_type },
					`${file} → ${node.name}: ${request.method} ${request.path}`,
				).toEqual(described.get(mailId));
			}
		}
	});
}

test('one pinned id describes the same mail item in every example', () => {
	const seen = new Map();
	for (const { file, workflow } of pinnedExamples)
		for (const { json } of Object.values(workflow.pinData).flat()) {
			if (json.event !== 'new-mail') continue;
			const content = `${json.sender_name} / ${json.mail_type}`;
			expect(seen.get(json.id) ?? content, `${file}: id ${json.id}`).toBe(content);
			seen.set(json.id, content);
		}
});
