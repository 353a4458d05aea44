// One rule matches mail from every node (README): the API's letter case of mail_type and
// mail_status in answers is "not shown" (spec) and the provider writes LARGELETTER in webhooks and
// its SDK's seed types, so the same mail, scan and shipment answered with the provider's tokens in
// other spellings must come out of every node with the same values: the webhook trigger, Mail →
// Get and Get Many, Scan → Get, Shipment → Get, the Poll Trigger, and File by Rules' matching.
import { beforeEach, describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { runNode, runPoll, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';
import { byName } from '../filing-rules/simulator.mjs';

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const page = (data) => ({
	status: 200,
	body: { data, next_cursor: null, total_count: data.length },
});
const action = async (parameters) => {
	const { items, error } = await runNode({ parameters });
	expect(error).toBeUndefined();
	return items.map((i) => i.json);
};
const poll = async (parameters) =>
	((await runPoll({ parameters, mode: 'manual' })).result?.[0] ?? []).map((i) => i.json);
const webhook = async (body, events) =>
	(
		await runWebhook({
			parameters: { events, options: {} },
			request: request(body),
			typeVersion: 2,
		})
	).result.workflowData[0].map((i) => i.json);

const SCAN_ID = '5ca00000-0000-4000-8000-000000000001';
/** The values a rule matches on, from any node's item. */
const values = (json) => ({
	mail_type: json.mail_type,
	mail_status: json.mail_status,
	...(json.scan ? { scan_status: json.scan.status, scan_category: json.scan.category } : {}),
});

describe('the same mail answered in the provider’s other spellings', () => {
	test('webhook, Mail → Get, Mail → Get Many and the Poll Trigger output large_letter, inbox and COMPLETED', async () => {
		const scanRef = (status, category) => ({ uuid: SCAN_ID, status, category, label: null });
		api.on('GET', '/v1/mails/1001', {
			status: 200,
			body: {
				...F.mailDetail(1, { mail_type: 'LARGELETTER', mail_status: 'INBOX' }),
				scan: scanRef('Completed', 'scan_request'),
			},
		});
		api.on(
			'GET',
			'/v1/mails',
			page([
				{
					...F.mail(1, { mail_type: 'LargeLetter', mail_status: 'Inbox' }),
					scan: scanRef('completed', 'SCAN_REQUEST'),
				},
			]),
			{ times: 2 },
		);
		const fromWebhook = await webhook(
			{ ...payloads['new-mail'], mail_type: 'LARGELETTER', mail_status: 'INBOX' },
			['new-mail'],
		);
		const [fromGet] = await action({ resource: 'mail', operation: 'get', mailId: '1001' });
		const [fromGetMany] = await action({
			resource: 'mail',
			operation: 'getAll',
			returnAll: false,
			limit: 1,
			filters: {},
		});
		const [fromPoll] = await poll({ event: 'new-mail', filters: {}, options: {} });

		expect(values(fromWebhook[0])).toEqual({ mail_type: 'large_letter', mail_status: 'inbox' });
		const withScan = {
			mail_type: 'large_letter',
			mail_status: 'inbox',
			scan_status: 'COMPLETED',
			scan_category: 'SCAN_REQUEST',
		};
		expect([fromGet, fromGetMany, fromPoll].map(values)).toEqual([withScan, withScan, withScan]);
	});

	test('a value the package does not know is kept, in the same form from every node', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 200,
			body: F.mailDetail(1, { mail_type: 'Post Card', mail_status: 'ON HOLD' }),
		});
		api.on(
			'GET',
			'/v1/mails',
			page([F.mail(1, { mail_type: 'PostCard', mail_status: 'on-hold' })]),
		);
		const [fromWebhook] = await webhook(
			{ ...payloads['new-mail'], mail_type: 'POST_CARD', mail_status: 'On Hold' },
			['new-mail'],
		);
		const [fromGet] = await action({ resource: 'mail', operation: 'get', mailId: '1001' });
		const [fromPoll] = await poll({ event: 'new-mail', filters: {}, options: {} });
		expect([fromWebhook, fromGet, fromPoll].map(values)).toEqual(
			Array(3).fill({ mail_type: 'post_card', mail_status: 'on_hold' }),
		);
	});
});

describe('the same scan and shipment answered in other spellings', () => {
	test('webhook, Scan → Get and the Poll Trigger output COMPLETED and SCAN_REQUEST', async () => {
		const answer = F.scan(1, { id: SCAN_ID });
		Object.assign(answer, { status: 'completed', type: 'scan_request' });
		api.on('GET', `/v1/scans/${SCAN_ID}`, { status: 200, body: answer });
		api.on('GET', '/v1/scans', page([answer]));
		const [fromWebhook] = await webhook(
			{ ...payloads['scan-update'], current_status: 'Completed' },
			['scan-update'],
		);
		const [fromGet] = await action({ resource: 'scan', operation: 'get', scanId: SCAN_ID });
		// The Poll Trigger keeps the scans of its event's type: a type in lower case is still a scan.
		const fromPoll = await poll({ event: 'scan-completed', options: {} });
		expect(fromPoll).toHaveLength(1);
		expect([fromWebhook, fromGet, fromPoll[0]].map((s) => [s.id, s.type, s.status])).toEqual(
			Array(3).fill([SCAN_ID, 'SCAN_REQUEST', 'COMPLETED']),
		);
	});

	test('webhook and Shipment → Get output shipped, and the packed mail’s large_letter', async () => {
		const shipment = F.shipment(1);
		api.on('GET', `/v1/shipments/${shipment.id}`, {
			status: 200,
			body: {
				...shipment,
				status: 'SHIPPED',
				mail_items: [{ id: '1001', mail_type: 'LARGELETTER' }],
			},
		});
		const [fromWebhook] = await webhook(
			{ ...payloads['shipment-update'], id: shipment.id, status: 'Shipped' },
			['shipment-update'],
		);
		const [fromGet] = await action({
			resource: 'shipment',
			operation: 'get',
			shipmentId: shipment.id,
		});
		expect([fromWebhook.status, fromGet.status]).toEqual(['shipped', 'shipped']);
		expect(fromGet.mail_items).toEqual([{ id: '1001', mail_type: 'large_letter' }]);
	});
});

describe('File by Rules matches the items of every node alike', () => {
	test('a Mail Type rule for large letters matches the webhook’s, Get’s and the Poll Trigger’s items of LARGELETTER mail', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 200,
			body: F.mailDetail(1, { mail_type: 'LARGELETTER', mail_status: 'INBOX' }),
		});
		api.on('GET', '/v1/mails', page([F.mail(1, { mail_type: 'LargeLetter' })]));
		const items = [
			...(await webhook({ ...payloads['new-mail'], mail_type: 'LARGELETTER' }, ['new-mail'])),
			...(await action({ resource: 'mail', operation: 'get', mailId: '1001' })),
			...(await poll({ event: 'new-mail', filters: {}, options: {} })),
		];
		api.on('GET', '/v1/folders', { status: 200, body: { data: [] } });
		const { items: out, error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'applyRules',
				rules: {
					rule: [{ field: 'mailType', mailTypes: ['large_letter'], folder: byName('Large') }],
				},
				previewOnly: true,
			},
			items,
		});
		expect(error).toBeUndefined();
		expect(out.map((i) => i.json.matched_rule)).toEqual([1, 1, 1]);
	});
});
