// Deliveries the spec's payload tables do not quite describe, as a real service may send them: a
// scan or open update with no result link and no AI fields (a rejected or cancelled request), a
// shipment update with only its id and status, ids above 2^53. Each must run its workflow (an
// unknown shape never loses an event) with every digit of its id kept; a body with no id of any
// event is still unrecognised, and nothing runs before the signature is checked.
import { beforeEach, describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { runWebhook } from '../../harness/n8n-core-harness.mjs';
import { payloads, request, sign } from '../../support/webhooks.mjs';

const ALL = ['new-mail', 'scan-update', 'open-update', 'shipment-update'];

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const deliver = async (body, { events = ALL, staticData = {}, typeVersion = 2, req } = {}) =>
	await runWebhook({
		parameters: { events, options: {} },
		request: req ?? request(body),
		staticData,
		typeVersion,
	});
const started = (run) => run.result.workflowData?.[0] ?? [];

/** A scan-update as a rejected or cancelled scan may come: no result link, no AI fields. */
const bare = (extra) => {
	const { scan_result_url: _u, ai_label: _l, ai_summary: _s, ...rest } = payloads['scan-update'];
	return { ...rest, ...extra };
};

describe('a scan or open update without result link or AI fields, Scan Update and Open Update both selected', () => {
	test('a rejected scan of a letter runs as a scan update with status REJECTED', async () => {
		const run = await deliver(bare({ mail_type: 'LETTER', current_status: 'REJECTED' }));
		expect(started(run).map((i) => i.json)).toMatchObject([
			{ event: 'scan-update', type: 'SCAN_REQUEST', status: 'REJECTED', mail_id: '1001' },
		]);
		expect(api.requests).toEqual([]);
	});

	test('a cancelled open-and-scan of a package runs as an open update with status CANCELLED', async () => {
		const run = await deliver(
			bare({ mail_type: 'PACKAGE', current_status: 'CANCELLED', message: 'Open cancelled' }),
		);
		expect(started(run).map((i) => i.json)).toMatchObject([
			{ event: 'open-update', type: 'UNBOXING_REQUEST', status: 'CANCELLED' },
		]);
	});

	test('without a telling mail type, the scan read by its uuid says which (an open here)', async () => {
		const { mail_type: _t, ...body } = bare({ current_status: 'REJECTED' });
		api.on('GET', `/v1/scans/${body.uuid}`, {
			status: 200,
			body: F.scan(1, { id: body.uuid, type: 'UNBOXING_REQUEST', status: 'REJECTED' }),
		});
		const run = await deliver(body);
		expect(started(run).map((i) => i.json.event)).toEqual(['open-update']);
		expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /v1/scans/${body.uuid}`,
		]);
	});

	test('when the scan cannot be read either, the update still runs (as a scan update)', async () => {
		const { mail_type: _t, ...body } = bare({ current_status: 'REJECTED' });
		api.on('GET', `/v1/scans/${body.uuid}`, { status: 404, body: F.problem(404) });
		const run = await deliver(body);
		expect(started(run).map((i) => [i.json.event, i.json.status])).toEqual([
			['scan-update', 'REJECTED'],
		]);
	});

	test('a status the spec does not list runs too, in the canonical form', async () => {
		const run = await deliver(bare({ current_status: 'Pending Review' }));
		expect(started(run).map((i) => i.json.status)).toEqual(['PENDING_REVIEW']);
	});
});

describe('other payloads of a subscribed event that the tables do not quite describe', () => {
	test('a shipment update with only id, status and message runs', async () => {
		const body = {
			id: '54100000-0000-4000-8000-000000000009',
			status: 'REJECTED',
			message: 'Shipment rejected',
		};
		const run = await deliver(body, { events: ['shipment-update'] });
		expect(started(run).map((i) => i.json)).toMatchObject([
			{ event: 'shipment-update', id: body.id, status: 'rejected' },
		]);
	});

	test('a new-mail delivery with only id and mail type runs', async () => {
		const run = await deliver({ id: 1005, mail_type: 'LARGELETTER', message: 'New mail' });
		expect(started(run).map((i) => i.json)).toMatchObject([
			{ event: 'new-mail', id: '1005', mail_type: 'large_letter' },
		]);
	});

	test('a body with no id of any event is still unrecognised and runs nothing', async () => {
		const run = await deliver({ status: 'COMPLETED', message: 'hello' });
		expect(run.result.workflowData).toBeUndefined();
		expect(run.result.webhookResponse).toEqual({
			received: true,
			ignored: 'unrecognised payload',
		});
	});

	test('a rejected scan update with a bad signature is refused before anything is read', async () => {
		const body = bare({ current_status: 'REJECTED' });
		const { raw, headers } = sign(body, { secret: 'not the secret' });
		const run = await deliver(undefined, { req: { headers, rawBody: raw, body } });
		expect(run.response.statusCode).toBe(401);
		expect(run.result.workflowData).toBeUndefined();
		expect(api.requests).toEqual([]);
	});
});

describe('ids above 2^53 keep every digit', () => {
	// Both ids round to the same double (9007199254740992): JSON.parse would make them one.
	const raw = (id) =>
		`{"id":${id},"mail_type":"LETTER","mail_status":"INBOX","weight":"0.10","image_url":"https://files.vmb.test/e.jpg?sig=a","message":"New mail"}`;

	for (const typeVersion of [2, 1]) {
		test(`version ${typeVersion}: two new-mail deliveries with ids 9007199254740993 and 9007199254740992 both run, each id as sent`, async () => {
			const staticData = {};
			const ids = [];
			for (const id of ['9007199254740993', '9007199254740992']) {
				const run = await deliver(undefined, {
					req: request(raw(id)),
					staticData,
					typeVersion,
				});
				ids.push(...started(run).map((i) => i.json.id));
			}
			expect(ids).toEqual(['9007199254740993', '9007199254740992']);
		});
	}

	test('a scan update for mail 12345678901234567890123 names that mail item, digit for digit', async () => {
		const body = `{"id":12345678901234567890123,"uuid":"5ca00000-0000-4000-8000-000000000001","mail_type":"LETTER","current_status":"COMPLETED","scan_result_url":"https://files.vmb.test/s.pdf?sig=a","message":"Scan completed"}`;
		const run = await deliver(undefined, { req: request(body) });
		expect(started(run).map((i) => i.json.mail_id)).toEqual(['12345678901234567890123']);
	});

	test('numbers that fit a double, decimals and digits inside text are read as JSON.parse reads them', async () => {
		const body = `{"id":1001,"mail_type":"LETTER","mail_status":"INBOX","weight":"12345678901234567890","measurement":{"width":"1.5","height":"2","length":"0.25"},"image_url":"https://x.test/e.jpg?sig=\\"12345678901234567890\\"","message":"n 1.5e3"}`;
		const run = await deliver(undefined, { req: request(body), typeVersion: 1 });
		expect(started(run)[0].json).toEqual({ event: 'new-mail', ...JSON.parse(body) });
	});
});
