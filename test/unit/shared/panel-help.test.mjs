// What the editor shows a newcomer where they build: the node panel's search words, action names,
// card description and node subtitle, and the values rules match the triggers' output against.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { Workflow } from 'n8n-workflow';
import { dist } from '../../harness/n8n-core-harness.mjs';
import { startSimulator } from '../../simulator/server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { VirtualMailbox } = dist('nodes/VirtualMailbox/VirtualMailbox.node.js');
const { VirtualMailboxTrigger } = dist('nodes/VirtualMailboxTrigger/VirtualMailboxTrigger.node.js');
const { VirtualMailboxPollTrigger } = dist(
	'nodes/VirtualMailboxPollTrigger/VirtualMailboxPollTrigger.node.js',
);
const { restShapeOf } = dist('nodes/VirtualMailboxTrigger/restShape.js');
const action = new VirtualMailbox().description;
const trigger = new VirtualMailboxTrigger().description;
const poll = new VirtualMailboxPollTrigger().description;

/** A node's subtitle as n8n's canvas resolves it for these parameters. */
function subtitleOf(description, parameters) {
	const workflow = new Workflow({
		nodes: [],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => undefined,
			getByNameAndVersion: () => undefined,
			getKnownTypes: () => ({}),
		},
	});
	const node = { id: 'n', name: 'n', type: 'x', typeVersion: 1, position: [0, 0], parameters };
	return workflow.expression.getSimpleParameterValue(
		node,
		description.subtitle,
		'internal',
		{ $parameter: parameters },
		undefined,
		'',
	);
}

describe('the node panel', () => {
	test('each node is found by the words a user searches for (mail, letter, package, folder, file, move, sort, scan, PMB)', () => {
		for (const file of [
			'nodes/VirtualMailbox/VirtualMailbox.node.json',
			'nodes/VirtualMailboxTrigger/VirtualMailboxTrigger.node.json',
			'nodes/VirtualMailboxPollTrigger/VirtualMailboxPollTrigger.node.json',
		]) {
			const { alias } = JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
			expect(alias, file).toEqual(
				expect.arrayContaining([
					'mail',
					'letter',
					'package',
					'folder',
					'file',
					'move',
					'sort',
					'scan',
					'PMB',
				]),
			);
		}
		// n8n's node search matches the whole query against a name or an alias: phrases too.
		const { alias } = JSON.parse(
			fs.readFileSync(path.join(ROOT, 'nodes/VirtualMailbox/VirtualMailbox.node.json'), 'utf8'),
		);
		expect(alias).toEqual(expect.arrayContaining(['move to folder', 'file mail', 'sort mail']));
	});

	test('filing is the action "Move mail to folder", the default name of the node it adds', () => {
		const mail = action.properties.find(
			(p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'mail',
		);
		expect(mail.options.find((o) => o.value === 'update').action).toBe('Move mail to folder');
		const scan = action.properties.find(
			(p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'scan',
		);
		expect(scan.options.find((o) => o.value === 'create').action).toBe('Request a scan');
	});

	test('the subtitle names the operation in words: "move to folder: mail", not "update: mail"', () => {
		expect(subtitleOf(action, { resource: 'mail', operation: 'update' })).toBe(
			'move to folder: mail',
		);
		expect(subtitleOf(action, { resource: 'mail', operation: 'getAll' })).toBe('get many: mail');
		expect(subtitleOf(action, { resource: 'scan', operation: 'getSummary' })).toBe(
			'get summary: scan',
		);
		expect(subtitleOf(action, { resource: 'folder', operation: 'update' })).toBe('update: folder');
	});

	test("the one card n8n shows for the node and its trigger (its description is the trigger's) says what the actions do, too", () => {
		// n8n's node creator merges "X Trigger" into "X" and gives the card the trigger's description
		// (editor-ui generateMergedNodesAndActions: `s.description = r.description`).
		expect(trigger.name.replace('Trigger', '')).toBe(action.name);
		expect(trigger.description).toMatch(
			/^File, scan and ship virtual mailbox mail, or start a workflow when mail arrives/,
		);
	});
});

describe('values for rules, where rules are written', () => {
	const noticeOf = (description) =>
		description.properties.find((p) => p.name === 'ruleValuesNotice');
	const MAIL_TYPES = [
		'letter',
		'large_letter',
		'magazine',
		'package',
		'softpak',
		'catalog',
		'distribution',
		'fulfillment',
		'inventory',
	];

	test('the webhook trigger (version 2) lists every mail type, mail status, scan status and shipment status it outputs', () => {
		const notice = noticeOf(trigger);
		expect(notice.type).toBe('notice');
		expect(notice.displayOptions).toEqual({ show: { '@version': [{ _cnd: { gte: 2 } }] } });
		expect(notice.displayName).toContain(
			`mail_type is ${MAIL_TYPES.slice(0, -1).join(', ')} or inventory`,
		);
		expect(notice.displayName).toContain(
			'mail_status is inbox, archived, quarantine or discard_request',
		);
		expect(notice.displayName).toContain(
			"a scan's status is IN_PROCESS, COMPLETED, CANCELLED, REJECTED, DELETED or RESTORING (upper case)",
		);
		expect(notice.displayName).toContain(
			"a shipment's status is shipped, in_progress, payment_failed or rejected",
		);
		expect(notice.displayName).toContain('Ignore Case');
	});

	test('the poll trigger lists the mail types, mail statuses and scan statuses it outputs', () => {
		const notice = noticeOf(poll).displayName;
		expect(notice).toContain('fulfillment');
		expect(notice).toContain('discard_request');
		expect(notice).toContain('IN_PROCESS');
		expect(notice).not.toContain('shipment');
	});

	test('every mail type the simulator logs is one the notice lists, and the webhook trigger outputs it as listed', async () => {
		const sim = await startSimulator({ count: 400, seed: 3 });
		try {
			const seen = new Set(sim.db.mails.map((m) => m.mail_type));
			expect(seen).toContain('fulfillment');
			for (const type of seen) expect(noticeOf(trigger).displayName).toContain(type);
			const { WebhookSender } = await import('../../simulator/webhooks.mjs');
			const sender = new WebhookSender(sim.mailbox, sim.webhookSecret);
			for (const type of MAIL_TYPES) {
				const mail = sim.mailbox.addMail({ mail_type: type });
				expect(restShapeOf('new-mail', sender.payload('new-mail', mail)).mail_type).toBe(type);
			}
		} finally {
			await sim.close();
		}
	});

	test("the examples' rules on the trigger's text values ignore letter case", () => {
		for (const file of fs.readdirSync(path.join(ROOT, 'examples'))) {
			const workflow = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', file), 'utf8'));
			for (const node of workflow.nodes.filter(
				(n) => n.type === 'n8n-nodes-base.if' || n.type === 'n8n-nodes-base.switch',
			)) {
				const groups =
					node.type === 'n8n-nodes-base.if'
						? [node.parameters.conditions]
						: node.parameters.rules.values.map((r) => r.conditions);
				for (const group of groups)
					expect(group.options.caseSensitive, `${file}: ${node.name}`).toBe(false);
			}
		}
	});
});
