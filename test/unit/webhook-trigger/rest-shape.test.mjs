// One shape of mail: the webhook trigger from version 2 outputs each delivery in the REST API's
// shape (nodes/VirtualMailboxTrigger/restShape.ts), so that its item, the Poll Trigger's and the
// action node's agree on names, types and letter case. Versions 1 and 1.1 keep the delivery as sent.
import { beforeEach, describe, expect, test } from 'vitest';
import * as S from '../../support/schemas.mjs';
import {
	dist,
	loadPackage,
	runDelivery,
	runNode,
	runPoll,
	runWebhook,
} from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';
import { providerSamples } from '../../support/provider-samples.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { restShapeOf } = dist('nodes/VirtualMailboxTrigger/restShape.js');
// The simulator of the last describe (webhook v2 = REST).
const { sim, credentials, control } = await simulatorForFile(
	{ count: 30, seed: 23 },
	{ reset: false },
);
const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

const ALL = ['new-mail', 'scan-update', 'open-update', 'shipment-update'];
const deliver = async (body, typeVersion, events = ALL) =>
	(await runWebhook({ parameters: { events, options: {} }, request: request(body), typeVersion }))
		.result.workflowData?.[0] ?? [];

describe('the mapping (spec payload tables → REST shapes)', () => {
	test('new-mail → the mail item fields', () => {
		expect(restShapeOf('new-mail', payloads['new-mail'])).toEqual({
			id: '1001',
			mail_type: 'letter',
			mail_status: 'inbox',
			weight: 0.1,
			measurement: { width: 9.5, height: 4.1, length: 0.2 },
			recipient_name: 'Ada Lovelace',
			sender_name: 'City Utilities',
			envelope_image_url: 'https://files.vmb.test/envelopes/1001.jpg?sig=abc',
			message: 'New mail from City Utilities',
		});
	});

	test('scan-update and open-update → the scan fields', () => {
		expect(
			restShapeOf('scan-update', {
				...payloads['scan-update'],
				ai_summary: 'Due 12 Dec\n Amount $84.10\n',
			}),
		).toEqual({
			id: '5ca00000-0000-4000-8000-000000000001',
			mail_id: '1001',
			type: 'SCAN_REQUEST',
			status: 'COMPLETED',
			mail_type: 'letter',
			scan_result_url: 'https://files.vmb.test/scans/5ca0.pdf?sig=abc',
			label: 'Electric bill',
			summary: ['Due 12 Dec', 'Amount $84.10'],
			recipient_name: 'Ada Lovelace',
			sender_name: 'City Utilities',
			message: 'Scan completed',
		});
		const open = restShapeOf('open-update', {
			...payloads['open-update'],
			current_status: 'in_process',
		});
		expect(open).toMatchObject({
			id: payloads['open-update'].uuid,
			mail_id: '1002',
			type: 'UNBOXING_REQUEST',
			status: 'IN_PROCESS',
			mail_type: 'package',
		});
		expect(Object.keys(open).slice(0, 4)).toEqual(['id', 'mail_id', 'type', 'status']);
	});

	test('shipment-update → the shipment fields, empty text as null', () => {
		expect(restShapeOf('shipment-update', payloads['shipment-update'])).toEqual({
			id: '54100000-0000-4000-8000-000000000003',
			status: 'in_progress',
			service_name: 'UPS Ground',
			tracking_number: '1Z999',
			auto_forward: false,
			destination: {
				name: 'Ada',
				line1: '1 Main St',
				line2: null,
				line3: null,
				city: 'Springfield',
				state: 'IL',
				postal_code: '62701',
				country: 'US',
				address_type: 'shipping',
				tax_id: null,
				phone_number: '+15555550100',
			},
			message: 'Shipment processed',
		});
		expect(
			restShapeOf('shipment-update', {
				...payloads['shipment-update'],
				tracking_data: '',
				service: '',
			}),
		).toMatchObject({ tracking_number: null, service_name: null });
	});

	test('nothing is dropped: every delivered field has its REST field, unknown ones pass through', () => {
		for (const event of ALL) {
			const body = { ...payloads[event], future_field: 7 };
			const rest = restShapeOf(event, body);
			expect(rest.future_field).toBe(7);
			expect(rest.delivery).toBeUndefined();
			// One output field per delivered field (scans add their type); the delivery is not repeated.
			expect(Object.keys(rest)).toHaveLength(
				Object.keys(body).length +
					(event.endsWith('-update') && event !== 'shipment-update' ? 1 : 0),
			);
		}
	});

	test('text that is not a number stays text (never NaN)', () => {
		const rest = restShapeOf('new-mail', {
			...payloads['new-mail'],
			weight: 'n/a',
			measurement: { width: '', height: '1', length: 'x' },
		});
		expect(rest.weight).toBe('n/a');
		expect(rest.measurement).toEqual({ width: '', height: 1, length: 'x' });
	});
});

// REST's value sets (spec "Shipment" status; GET /v1/mails mail_type filter values).
const REST_SHIPMENT_STATUSES = ['shipped', 'in_progress', 'payment_failed', 'rejected'];
const REST_MAIL_TYPES = [
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

describe("the provider's own sample payloads (support article), not the simulator's", () => {
	test('new-mail sample → the mail item fields', () => {
		const sample = providerSamples['new-mail'];
		expect(restShapeOf('new-mail', sample)).toEqual({
			measurement: { width: 9, height: 0.01, length: 4 },
			id: '111111',
			weight: 0.03,
			mail_status: 'inbox',
			mail_type: 'letter',
			envelope_image_url: 'https://usgm-fe-media-prod.s3.us-east-1.amazonaws.com/sample_mail.jpg',
			recipient_name: 'John Smith',
			sender_name: 'US Government',
			message: 'New mail received.',
		});
	});

	test('shipment-update sample → the shipment fields: PROCESSED is in_progress, address_type keeps its name', () => {
		// REST has no "processed": in_progress "covers every internal workflow state between
		// request and shipment" (spec). REST's destination has no type; `residential` is not an
		// Address.type (shipping / deposit), so address_type keeps its own name.
		const sample = providerSamples['shipment-update'];
		const rest = restShapeOf('shipment-update', sample);
		expect(rest).toEqual({
			id: 'b3ba0f4f-9ae6-4256-8b70-cd5f404756a9',
			auto_forward: false,
			destination: {
				name: 'Home Address',
				line1: '2204 18th Street NW',
				line2: 'Apt 3B',
				line3: null,
				city: 'Washington',
				state: 'District of Columbia',
				postal_code: '20009',
				country: 'United States',
				address_type: 'residential',
				tax_id: '123-45-6789',
				phone_number: '+1-202-555-0143',
			},
			service_name: 'DHL Express Easy',
			status: 'in_progress',
			tracking_number: '1234567890',
			message: 'Shipment re',
		});
		expect(REST_SHIPMENT_STATUSES).toContain(rest.status);
		expect(['shipping', 'deposit', undefined]).toContain(rest.destination.type);
	});
});

describe('webhook values mapped onto REST values', () => {
	test('shipment-update: every delivered status is a REST shipment status', () => {
		const cases = {
			SHIPPED: 'shipped',
			IN_PROGRESS: 'in_progress',
			PAYMENT_FAILED: 'payment_failed',
			REJECTED: 'rejected',
			PROCESSED: 'in_progress',
			AWAITING_PICKUP: 'in_progress',
			shipped: 'shipped',
		};
		for (const [sent, expected] of Object.entries(cases)) {
			const rest = restShapeOf('shipment-update', { ...payloads['shipment-update'], status: sent });
			expect(rest.status, sent).toBe(expected);
			expect(REST_SHIPMENT_STATUSES).toContain(rest.status);
		}
	});

	for (const event of ['new-mail', 'scan-update', 'open-update']) {
		test(`${event}: the provider's upper-case LARGELETTER (and LARGE_LETTER) is REST's large_letter`, () => {
			// The provider writes LARGELETTER (its SDK's seed mail types); lower-casing gives
			// "largeletter", which no REST output or filter has.
			expect(restShapeOf(event, { ...payloads[event], mail_type: 'LARGELETTER' }).mail_type).toBe(
				'large_letter',
			);
			expect(restShapeOf(event, { ...payloads[event], mail_type: 'LARGE_LETTER' }).mail_type).toBe(
				'large_letter',
			);
			for (const type of REST_MAIL_TYPES)
				expect(
					restShapeOf(event, {
						...payloads[event],
						mail_type: type.toUpperCase().replace('LARGE_LETTER', 'LARGELETTER'),
					}).mail_type,
				).toBe(type);
		});
	}

	test('scan-update: an empty ai_label / ai_summary is null, as REST label and summary are', () => {
		const rest = restShapeOf('scan-update', {
			...payloads['scan-update'],
			ai_label: '',
			ai_summary: '',
		});
		expect(rest.label).toBeNull();
		expect(rest.summary).toBeNull();
	});

	test('empty sender and recipient names are null, as REST has them', () => {
		for (const event of ['new-mail', 'scan-update', 'open-update']) {
			const rest = restShapeOf(event, { ...payloads[event], sender_name: '', recipient_name: '' });
			expect([rest.sender_name, rest.recipient_name], event).toEqual([null, null]);
		}
	});

	test('scan-update: a delivered field named `type` does not replace the REST scan type', () => {
		const rest = restShapeOf('scan-update', { ...payloads['scan-update'], type: 'document' });
		expect(rest.type).toBe('SCAN_REQUEST');
		expect(restShapeOf('open-update', { ...payloads['open-update'], type: 'document' }).type).toBe(
			'UNBOXING_REQUEST',
		);
	});
});

describe('node versions', () => {
	beforeEach(() => recentDeliveries.clear?.());

	test('new nodes get version 2', async () => {
		const loader = await loadPackage();
		const type = loader.nodeTypes.virtualMailboxTrigger.type;
		const versions = type.description.version ?? Object.keys(type.nodeVersions).map(Number);
		expect(versions).toEqual([1, 1.1, 2]);
		expect(type.description.defaultVersion).toBe(2);
	});

	for (const event of ALL) {
		test(`${event}: versions 1 and 1.1 output the delivery as sent, version 2 the REST shape`, async () => {
			const body = {
				...payloads[event],
				uuid: payloads[event].uuid,
				id: event === 'shipment-update' ? payloads[event].id : 5000 + ALL.indexOf(event),
			};
			for (const version of [1, 1.1]) {
				const items = await deliver({ ...body, message: `v${version}` }, version);
				expect(items.map((i) => i.json)).toEqual([{ event, ...body, message: `v${version}` }]);
			}
			const items = await deliver({ ...body, message: 'v2' }, 2);
			expect(items.map((i) => i.json)).toEqual([
				{ event, ...restShapeOf(event, { ...body, message: 'v2' }) },
			]);
		});
	}

	for (const typeVersion of [1, 1.1]) {
		test(`version ${typeVersion}: a copy of a delivery with an object field "delivery" is still claimed once`, async () => {
			// At versions 1 and 1.1 the item is the delivery: a `delivery` field in it is the sender's.
			const body = {
				...payloads['new-mail'],
				id: 8123 + typeVersion * 10,
				delivery: { carrier: 'USPS' },
			};
			const run = (executionId) =>
				runDelivery({
					parameters: { events: ['new-mail'], options: {} },
					request: request(body),
					typeVersion,
					executionId,
					workflowId: `wf-rest-shape-v${typeVersion}`,
				});
			const first = await run('1');
			expect(first.items.map((i) => i.json.id)).toEqual([body.id]);
			// Another webhook process (or a restart): the webhook's own memory does not know it.
			recentDeliveries.clear?.();
			const second = await run('2');
			expect(second.items ?? []).toEqual([]);
		});
	}

	test('version 2: a copy of a delivery is still claimed once (the key comes from the item content)', async () => {
		const body = { ...payloads['new-mail'], id: 7777 };
		const run = (executionId) =>
			runDelivery({
				parameters: { events: ['new-mail'], options: {} },
				request: request(body),
				typeVersion: 2,
				executionId,
				workflowId: 'wf-rest-shape-claims',
			});
		const first = await run('1');
		expect(first.items.map((i) => i.json.id)).toEqual(['7777']);
		recentDeliveries.clear?.();
		// The webhook's own memory forgotten (another process, a restart): the execution's claim decides.
		const second = await run('2');
		expect(second.items ?? []).toEqual([]);
	});

	test('version 2: each field appears once by default; Include Delivery as Sent adds the delivery as sent under `delivery`', async () => {
		for (const event of ALL) {
			const [plain] = await deliver({ ...payloads[event], message: `plain ${event}` }, 2, [event]);
			expect(plain.json, event).not.toHaveProperty('delivery');
			expect(JSON.stringify(plain.json), event).not.toMatch(/"LETTER"|"PACKAGE"|"INBOX"/);
			const body = { ...payloads[event], message: `raw ${event}` };
			const [raw] = (
				await runWebhook({
					parameters: { events: [event], options: { includeDelivery: true } },
					request: request(body),
					typeVersion: 2,
				})
			).result.workflowData[0];
			expect(raw.json, event).toEqual({ event, ...restShapeOf(event, body), delivery: body });
		}
	});

	test('version 1.1 ignores Include Delivery as Sent: its item is the delivery as sent', async () => {
		const body = { ...payloads['new-mail'], id: 9191 };
		const [item] = (
			await runWebhook({
				parameters: { events: ['new-mail'], options: { includeDelivery: true } },
				request: request(body),
				typeVersion: 1.1,
			})
		).result.workflowData[0];
		expect(item.json).toEqual({ event: 'new-mail', ...body });
	});

	test('version 2: a delivery whose content changed (same id and status) is a new claim; a copy is not', async () => {
		const body = { ...payloads['shipment-update'], id: 'ship-claims-1', tracking_data: '' };
		const run = (sent, executionId) =>
			runDelivery({
				parameters: { events: ['shipment-update'], options: {} },
				request: request(sent),
				typeVersion: 2,
				executionId,
				workflowId: 'wf-rest-shape-content',
			});
		expect((await run(body, '1')).items).toHaveLength(1);
		recentDeliveries.clear?.();
		// The tracking number filled in: the same shipment and status, new content.
		expect((await run({ ...body, tracking_data: '1Z555' }, '2')).items).toHaveLength(1);
		recentDeliveries.clear?.();
		expect((await run({ ...body, tracking_data: '1Z555' }, '3')).items ?? []).toEqual([]);
	});
});

describe('the same mail, scan and shipment from the simulator: webhook v2 = REST', () => {
	const viaWebhook = async (event, id) => {
		const { payload } = await control('/deliver', { event, id });
		const { result } = await runWebhook({
			parameters: { events: [event], options: {} },
			request: request(payload, { secret: sim.webhookSecret }),
			credentials,
			typeVersion: 2,
		});
		return result.workflowData[0][0].json;
	};
	const action = async (parameters) => (await runNode({ parameters, credentials })).items[0].json;
	/** Every field both carry has the same type and letter case; the value too, but for pre-signed links. */
	const expectSameShape = (webhook, rest, atLeast) => {
		const common = Object.keys(webhook).filter((key) => key in rest);
		expect(common).toEqual(expect.arrayContaining(atLeast));
		for (const key of common) {
			if (key.endsWith('_url')) expect(typeof webhook[key], key).toBe(typeof rest[key]);
			else if (webhook[key] && typeof webhook[key] === 'object' && !Array.isArray(webhook[key]))
				expectSameShape(webhook[key], rest[key], []);
			else expect(webhook[key], key).toEqual(rest[key]);
		}
	};

	test('new mail: Poll Trigger (list entry) and Mail → Get (detail)', async () => {
		const { mail } = await control('/mail', { sender_name: 'Acme Parts', mail_type: 'package' });
		const webhook = await viaWebhook('new-mail', mail.id);
		S.MailItemDetail.partial().parse(webhook);
		const polled = (
			await runPoll({
				parameters: { event: 'new-mail', filters: {}, options: {} },
				credentials,
				mode: 'manual',
			})
		).result[0].find((i) => i.json.id === mail.id).json;
		expectSameShape(webhook, polled, [
			'event',
			'id',
			'mail_type',
			'mail_status',
			'sender_name',
			'recipient_name',
			'envelope_image_url',
		]);
		const detail = await action({ resource: 'mail', operation: 'get', mailId: mail.id });
		expectSameShape(webhook, detail, [
			'id',
			'mail_type',
			'mail_status',
			'sender_name',
			'weight',
			'measurement',
		]);
		expect(webhook).toMatchObject({
			mail_type: 'package',
			mail_status: 'inbox',
			sender_name: 'Acme Parts',
		});
	});

	test('scan completed: Poll Trigger and Scan → Get', async () => {
		const mail = sim.db.mails.find((m) => m.mail_type === 'letter'); // a letter takes a scan (SDK)
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		await control(`/scans/${scan.id}/status`, {
			status: 'COMPLETED',
			label: 'Invoice',
			summary: ['Due soon'],
		});
		const webhook = await viaWebhook('scan-update', scan.id);
		S.Scan.partial().parse(webhook);
		const polled = (
			await runPoll({
				parameters: { event: 'scan-completed', options: {} },
				credentials,
				mode: 'manual',
			})
		).result[0].find((i) => i.json.id === scan.id).json;
		// The event names are each trigger's own (the webhook's are the dashboard's): scan-update, scan-completed.
		expect([webhook.event, polled.event]).toEqual(['scan-update', 'scan-completed']);
		expectSameShape({ ...webhook, event: polled.event }, polled, [
			'id',
			'mail_id',
			'type',
			'status',
			'label',
		]);
		expectSameShape(
			webhook,
			await action({ resource: 'scan', operation: 'get', scanId: scan.id }),
			['id', 'mail_id', 'type', 'status', 'label'],
		);
		const summary = await action({ resource: 'scan', operation: 'getSummary', scanId: scan.id });
		expectSameShape(webhook, summary, ['label', 'summary']);
	});

	test('shipment: Shipment → Get', async () => {
		const shipment = sim.db.shipments.find((s) => s.destination && s.tracking_number);
		const webhook = await viaWebhook('shipment-update', shipment.id);
		const detail = await action({
			resource: 'shipment',
			operation: 'get',
			shipmentId: shipment.id,
		});
		expectSameShape(webhook, detail, [
			'id',
			'status',
			'service_name',
			'tracking_number',
			'destination',
		]);
	});
});

describe('the examples', () => {
	test("pinned sample data on each example's trigger has the fields version 2 outputs by default, in REST values", async () => {
		const { exampleWorkflows } = await import('../../e2e/examples.mjs');
		let checked = 0;
		for (const { file, workflow } of exampleWorkflows()) {
			const trigger = workflow.nodes.find(
				(n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
			);
			if (!trigger) continue;
			expect(trigger.typeVersion, file).toBe(2);
			for (const { json } of workflow.pinData[trigger.name]) {
				expect(trigger.parameters.events, file).toContain(json.event);
				const expected = Object.keys({
					event: json.event,
					...restShapeOf(json.event, payloads[json.event]),
				}).sort();
				expect(
					Object.keys(json)
						.filter((key) => !['label', 'summary'].includes(key))
						.sort(),
					file,
				).toEqual(expected.filter((key) => !['label', 'summary'].includes(key)));
				if (json.mail_type !== undefined) expect(REST_MAIL_TYPES, file).toContain(json.mail_type);
				checked++;
			}
		}
		expect(checked).toBeGreaterThanOrEqual(4);
	});
});
