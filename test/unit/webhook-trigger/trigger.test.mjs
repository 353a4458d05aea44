import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import * as S from '../../support/schemas.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import { DEFAULT_CREDENTIALS, dist, runHook, runWebhook } from '../../harness/n8n-core-harness.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
import { PREVIOUS, SECRET, payloads, request, sign } from '../../support/webhooks.mjs';

const ALL = ['new-mail', 'scan-update', 'open-update', 'shipment-update'];
const params = (options = {}, events = ALL) => ({ events, options });

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

async function deliver(
	body,
	{ parameters = params(), staticData = {}, credentials, req, workflowId } = {},
) {
	return await runWebhook({
		parameters,
		request: req ?? request(body),
		staticData,
		credentials,
		workflowId,
	});
}
const started = (result) => result.result.workflowData?.[0] ?? [];
/** Acknowledged by n8n with 200 (the node wrote no error response) and started nothing. */
const ignored = (run) => {
	expect(run.response.statusCode).toBe(200);
	expect(run.result.workflowData).toBeUndefined();
	expect(run.result.webhookResponse).toMatchObject({ received: true });
	return run.result.webhookResponse.ignored;
};

describe('payloads of the spec', () => {
	test('fixtures match the spec payload tables', () => {
		S.NewMailEvent.parse(payloads['new-mail']);
		S.ScanUpdateEvent.parse(payloads['scan-update']);
		S.OpenUpdateEvent.parse(payloads['open-update']);
		S.ShipmentUpdateEvent.parse(payloads['shipment-update']);
	});

	for (const event of ALL) {
		test(`${event}: recognised, left to n8n to acknowledge, emitted with the payload unchanged plus event`, async () => {
			const run = await deliver(payloads[event]);
			expect(run.response.statusCode).toBe(200);
			expect(run.result.noWebhookResponse).toBeUndefined();
			expect(started(run).map((i) => i.json)).toEqual([{ event, ...payloads[event] }]);
		});
	}

	test('a scan or open update without a result link is attributed to the one of the two selected, else by its mail type', async () => {
		const { scan_result_url: _u, ai_label: _l, ai_summary: _s, ...bare } = payloads['scan-update'];
		const bareBody = { ...bare, mail_type: 'PACKAGE', current_status: 'IN_PROCESS' };
		expect(
			started(await deliver(bareBody, { parameters: params({}, ['scan-update']) }))[0].json.event,
		).toBe('scan-update');
		// Both selected: a package takes an open-and-scan (SDK), so this is an open update.
		expect(
			started(
				await deliver(bareBody, { parameters: params({}, ['scan-update', 'open-update']) }),
			)[0].json.event,
		).toBe('open-update');
	});
});

describe('acknowledged without starting anything', () => {
	test('an event the user did not select', async () => {
		expect(
			ignored(await deliver(payloads['shipment-update'], { parameters: params({}, ['new-mail']) })),
		).toBe('shipment-update not selected');
	});
	test('a body that matches no event', async () => {
		expect(ignored(await deliver({ hello: 'world' }))).toBe('unrecognised payload');
	});
	test('Only Completed drops scan updates in other states', async () => {
		const inProcess = { ...payloads['scan-update'], current_status: 'IN_PROCESS' };
		expect(
			started(await deliver(inProcess, { parameters: params({ onlyCompleted: true }) })),
		).toHaveLength(0);
		expect(
			started(
				await deliver(payloads['scan-update'], { parameters: params({ onlyCompleted: true }) }),
			),
		).toHaveLength(1);
		expect(
			started(await deliver(payloads['new-mail'], { parameters: params({ onlyCompleted: true }) })),
		).toHaveLength(1);
	});
});

describe('rejected with 401 (or 400), no workflow data, never a throw', () => {
	const body = payloads['new-mail'];
	const good = () => request(body);
	const cases = {
		'missing signature header': () => {
			const r = good();
			delete r.headers['usgm-webhook-signature'];
			return r;
		},
		'missing timestamp header': () => {
			const r = good();
			delete r.headers['usgm-webhook-timestamp'];
			return r;
		},
		'bad signature': () => ({
			...good(),
			headers: { ...good().headers, 'usgm-webhook-signature': 'a'.repeat(64) },
		}),
		'signed with another secret': () => request(body, { secret: 'whsec_someone_else' }),
		'stale timestamp': () => request(body, { timestamp: Date.now() - 6 * 60_000 }),
		'future timestamp': () => request(body, { timestamp: Date.now() + 6 * 60_000 }),
		'tampered body': () => ({
			...good(),
			rawBody: Buffer.from(JSON.stringify({ ...body, sender_name: 'Mallory' })),
		}),
		'no raw body': () => ({ ...good(), rawBody: undefined }),
	};
	for (const [name, make] of Object.entries(cases)) {
		test(name, async () => {
			const run = await deliver(undefined, { req: make() });
			expect(run.response.statusCode).toBe(401);
			expect(run.result).toEqual({ noWebhookResponse: true });
		});
	}
	test('no webhook secret in the credential', async () => {
		const run = await deliver(body, { credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: '' } });
		expect(run.response.statusCode).toBe(401);
		expect(run.result.workflowData).toBeUndefined();
	});
	test('secrets pasted with a trailing newline or spaces still verify (current and previous)', async () => {
		const credentials = {
			...DEFAULT_CREDENTIALS,
			webhookSecret: `${SECRET}\n`,
			webhookRotation: true,
			previousWebhookSecret: `  ${PREVIOUS} `,
		};
		expect(started(await deliver(body, { credentials }))).toHaveLength(1);
		expect(
			started(
				await deliver(undefined, {
					req: request({ ...payloads['new-mail'], id: 5301 }, { secret: PREVIOUS }),
					credentials,
				}),
			),
		).toHaveLength(1);
	});
	test('the previous secret still works during rotation', async () => {
		const credentials = {
			...DEFAULT_CREDENTIALS,
			webhookRotation: true,
			previousWebhookSecret: PREVIOUS,
		};
		const run = await deliver(undefined, { req: request(body, { secret: PREVIOUS }), credentials });
		expect(started(run)).toHaveLength(1);
	});
	test('the previous secret is refused once Rotating the Webhook Secret is off', async () => {
		const credentials = {
			...DEFAULT_CREDENTIALS,
			webhookRotation: false,
			previousWebhookSecret: PREVIOUS,
		};
		const run = await deliver(undefined, {
			req: request({ ...payloads['new-mail'], id: 5302 }, { secret: PREVIOUS }),
			credentials,
		});
		expect(run.response.statusCode).toBe(401);
		expect(started(run)).toHaveLength(0);
	});
	test('signed but malformed JSON gets 400', async () => {
		const { raw, headers } = sign('{"id": 1001,');
		const run = await deliver(undefined, { req: { headers, rawBody: raw, body: {} } });
		expect(run.response.statusCode).toBe(400);
		expect(run.result.workflowData).toBeUndefined();
	});
	test('a tolerance option widens the window', async () => {
		const req = request(body, { timestamp: Date.now() - 9 * 60_000 });
		const run = await deliver(undefined, { req, parameters: params({ toleranceMinutes: 10 }) });
		expect(started(run)).toHaveLength(1);
	});
});

describe('the credential is kept for a minute, never past a change of secret that matters', () => {
	const rotated = { ...DEFAULT_CREDENTIALS, webhookSecret: 'whsec_rotated_5555555555' };
	const workflowId = () => `wf-keep-${Math.random().toString(36).slice(2)}`;
	const mail = (id) => ({ ...payloads['new-mail'], id });
	afterEach(() => vi.useRealTimers());

	test('a burst of deliveries reads the credential once (in n8n: a query, a decryption and an isolate each)', async () => {
		const id = workflowId();
		const loads = [];
		for (let n = 0; n < 5; n++) {
			const run = await deliver(mail(5000 + n), { workflowId: id });
			expect(started(run)).toHaveLength(1);
			loads.push(run.credentialLoads);
		}
		expect(loads).toEqual([1, 0, 0, 0, 0]);
	});

	test('a delivery signed with a new secret is accepted at once: a failed check reads the credential again', async () => {
		const id = workflowId();
		await deliver(mail(5100), { workflowId: id });
		const run = await deliver(mail(5101), {
			workflowId: id,
			credentials: rotated,
			req: request(mail(5101), { secret: rotated.webhookSecret }),
		});
		expect(started(run)).toHaveLength(1);
		expect(run.credentialLoads).toBe(1);
	});

	test('a secret taken out of the credential is refused after a minute at most', async () => {
		vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-22T08:00:00Z') });
		const id = workflowId();
		await deliver(mail(5200), { workflowId: id });
		vi.setSystemTime(new Date('2026-11-22T08:01:01Z'));
		const run = await deliver(mail(5201), { workflowId: id, credentials: rotated });
		expect(run.response.statusCode).toBe(401);
		expect(run.result.workflowData).toBeUndefined();
	});

	test('activating the workflow again starts from the stored credential', async () => {
		const id = workflowId();
		await deliver(mail(5300), { workflowId: id });
		api.on('GET', '/v1/account', { body: F.account() });
		expect(
			await runHook({
				parameters: params(),
				method: 'create',
				credentials: rotated,
				workflowId: id,
			}),
		).toBe(true);
		const run = await deliver(mail(5301), { workflowId: id, credentials: rotated });
		expect(run.response.statusCode).toBe(401);
		expect(run.credentialLoads).toBe(1);
	});
});

describe('each event exactly once', () => {
	test('an identical delivery within the window starts nothing; the state survives a restart in static data', async () => {
		const workflowId = 'wf-dedupe';
		const first = await deliver(payloads['scan-update'], { workflowId });
		expect(started(first)).toHaveLength(1);
		recentDeliveries.clear(); // as after a restart: only static data remains
		const again = await deliver(payloads['scan-update'], {
			staticData: first.staticData,
			workflowId,
		});
		expect(ignored(again)).toBe('duplicate');
		// a new status of the same scan is a new event
		const cancelled = await deliver(
			{ ...payloads['scan-update'], current_status: 'CANCELLED' },
			{ staticData: again.staticData, workflowId },
		);
		expect(started(cancelled)).toHaveLength(1);
	});

	test('version 2: the window keys new mail on its mail id, as the claim does: the same mail delivered again with another status starts nothing', async () => {
		const workflowId = 'wf-one-key';
		const first = await runWebhook({
			parameters: params(),
			request: request(payloads['new-mail']),
			workflowId,
			typeVersion: 2,
		});
		expect(started(first)).toHaveLength(1);
		const moved = await runWebhook({
			parameters: params(),
			request: request({ ...payloads['new-mail'], mail_status: 'ARCHIVED' }),
			staticData: first.staticData,
			workflowId,
			typeVersion: 2,
		});
		expect(ignored(moved)).toBe('duplicate');
	});

	test('two copies arriving at once (both reading the same saved state) start one execution', async () => {
		const workflowId = 'wf-concurrent';
		const saved = {};
		const [a, b] = await Promise.all([
			deliver(payloads['new-mail'], { staticData: structuredClone(saved), workflowId }),
			deliver(payloads['new-mail'], { staticData: structuredClone(saved), workflowId }),
		]);
		expect(started(a).length + started(b).length).toBe(1);
	});

	test('an older update arriving after a newer one is dropped (and kept when the option is off)', async () => {
		const now = Date.now();
		const newer = await deliver(undefined, {
			req: request(payloads['scan-update'], { timestamp: now }),
		});
		const olderBody = { ...payloads['scan-update'], current_status: 'IN_PROCESS' };
		const older = await deliver(undefined, {
			req: request(olderBody, { timestamp: now - 1000 }),
			staticData: JSON.parse(JSON.stringify(newer.staticData)),
		});
		expect(ignored(older)).toBe('stale');
		const kept = await deliver(undefined, {
			req: request(olderBody, { timestamp: now - 1000 }),
			staticData: JSON.parse(JSON.stringify(newer.staticData)),
			parameters: params({ dropStale: false }),
		});
		expect(started(kept)).toHaveLength(1);
	});

	test('a duplicate window of 0 turns deduplication off', async () => {
		const workflowId = 'wf-no-dedupe';
		const first = await deliver(payloads['new-mail'], {
			parameters: params({ duplicateWindowMinutes: 0 }),
			workflowId,
		});
		const again = await deliver(payloads['new-mail'], {
			staticData: first.staticData,
			parameters: params({ duplicateWindowMinutes: 0 }),
			workflowId,
		});
		expect(started(again)).toHaveLength(1);
	});

	test('the state stays bounded', async () => {
		const { dist } = await import('../../harness/n8n-core-harness.mjs');
		const { judge, stateOf, MAX_ENTRIES } = dist('nodes/VirtualMailboxTrigger/deliveries.js');
		const state = stateOf({});
		for (let n = 0; n < MAX_ENTRIES * 3; n++)
			judge(
				state,
				{
					key: `scan-update:${n}|COMPLETED`,
					resource: `scan-update:${n}`,
					version: 'COMPLETED',
					signedAt: n,
				},
				1000 + n,
				{
					windowMs: 86_400_000,
					dropStale: true,
				},
			);
		expect(Object.keys(state.seen).length).toBeLessThanOrEqual(MAX_ENTRIES * 1.1);
		expect(Object.keys(state.latest).length).toBeLessThanOrEqual(MAX_ENTRIES * 1.1);
		expect(state.seen[`scan-update:${MAX_ENTRIES * 3 - 1}|COMPLETED`]).toBeDefined();
		// new mail has no order to keep, and a check that is off records nothing
		const lean = stateOf({});
		judge(
			lean,
			{
				key: 'new-mail:1',
				resource: 'new-mail:1',
				version: 'INBOX',
				signedAt: 1,
				trackOrder: false,
			},
			5,
			{
				windowMs: 0,
				dropStale: true,
			},
		);
		expect(lean).toEqual({ seen: {}, latest: {} });
	});
});

describe('Download File and Add Full Resource', () => {
	const files = 'https://files.vmb.test';
	const pdf = Buffer.from('%PDF-1.7 scan bytes');

	test('scan-update: the PDF is attached as binary with its content type and file name, without the API key', async () => {
		const seen = [];
		const nock = (await import('nock')).default;
		nock(files)
			.get('/scans/5ca0.pdf')
			.query({ sig: 'abc' })
			.reply(function () {
				seen.push(this.req.headers);
				return [
					200,
					pdf,
					{
						'content-type': 'application/pdf',
						'content-disposition': 'attachment; filename="electric-bill.pdf"',
					},
				];
			});
		const run = await deliver(payloads['scan-update'], {
			parameters: params({ downloadFile: true }),
		});
		const [item] = started(run);
		expect(item.json).toEqual({ event: 'scan-update', ...payloads['scan-update'] });
		expect(item.binary.data).toMatchObject({
			mimeType: 'application/pdf',
			fileName: 'electric-bill.pdf',
			fileExtension: 'pdf',
		});
		expect(Buffer.from(item.binary.data.data, 'base64').equals(pdf)).toBe(true);
		expect(seen[0].authorization).toBeUndefined();
	});

	for (const event of ['new-mail', 'open-update']) {
		test(`${event}: file name from the link when no Content-Disposition; custom binary field`, async () => {
			const nock = (await import('nock')).default;
			const url = new URL(payloads[event][event === 'new-mail' ? 'image_url' : 'open_result_url']);
			nock(files)
				.get(url.pathname)
				.query(true)
				.reply(200, pdf, {
					'content-type': event === 'new-mail' ? 'image/jpeg' : 'application/pdf',
				});
			const run = await deliver(payloads[event], {
				parameters: params({ downloadFile: true, binaryPropertyName: 'file' }),
			});
			const [item] = started(run);
			expect(item.binary.file.fileName).toBe(url.pathname.split('/').pop());
			expect(item.binary.file.mimeType).toBe(
				event === 'new-mail' ? 'image/jpeg' : 'application/pdf',
			);
		});
	}

	test('a failed download keeps the event and says what went wrong', async () => {
		const nock = (await import('nock')).default;
		nock(files)
			.get('/scans/5ca0.pdf')
			.query(true)
			.reply(403, '<Error>Request has expired</Error>', { 'content-type': 'application/xml' });
		const run = await deliver(payloads['scan-update'], {
			parameters: params({ downloadFile: true }),
		});
		const [item] = started(run);
		expect(item.json.uuid).toBe(payloads['scan-update'].uuid);
		expect(item.json.download_error).toMatch(/HTTP 403/);
		expect(item.binary).toBeUndefined();
	});

	test('Add Full Resource: mail item for new-mail, summary for scan-update, shipment for shipment-update', async () => {
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		api.on('GET', `/v1/scans/${payloads['scan-update'].uuid}/summary`, {
			body: { label: 'Electric bill', summary: ['Due 12 Dec'] },
		});
		api.on('GET', `/v1/shipments/${payloads['shipment-update'].id}`, {
			status: 404,
			body: F.problem(404),
		});
		const p = params({ includeDetails: true });
		expect(
			started(await deliver(payloads['new-mail'], { parameters: p }))[0].json.mail_item,
		).toEqual(F.mailDetail(1));
		expect(
			started(await deliver(payloads['scan-update'], { parameters: p }))[0].json.scan_summary.label,
		).toBe('Electric bill');
		const shipment = started(await deliver(payloads['shipment-update'], { parameters: p }))[0].json;
		expect(shipment.shipment_error).toMatch(/Not found/);
		expect(shipment.id).toBe(payloads['shipment-update'].id);
	});
});

describe('lifecycle methods', () => {
	const activate = (credentials) =>
		runHook({
			parameters: params({}, ['new-mail']),
			method: 'create',
			credentials: { ...DEFAULT_CREDENTIALS, ...credentials },
		}).then(
			() => undefined,
			(e) => e,
		);
	test('activation checks the secret and the key', async () => {
		api.on('GET', '/v1/account', { body: F.account() });
		expect(await runHook({ parameters: params(), method: 'checkExists' })).toBe(false);
		expect(await runHook({ parameters: params(), method: 'create' })).toBe(true);
		expect(api.requests).toHaveLength(1);
		expect(await runHook({ parameters: params(), method: 'delete' })).toBe(true);
	});
	// n8n's activation toast shows an error's message only, so the how-to must be in the message.
	test('activation without a webhook secret fails before any request and says what to do in its message', async () => {
		await expect(
			runHook({
				parameters: params(),
				method: 'create',
				credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: '' },
			}),
		).rejects.toThrow(
			/no Webhook Secret: copy the signing secret from the dashboard \(Settings → Automations → Webhooks\) into the credential's Webhook Secret field/,
		);
		expect(api.requests).toHaveLength(0);
	});
	test('a Webhook Secret of only spaces is no secret: activation fails at once (the API Key check trims, this one does not)', async () => {
		api.on('GET', '/v1/account', { body: { id: 'acct' } });
		const error = await activate({ webhookSecret: '   ' });
		expect(error?.message).toMatch(/no Webhook Secret/);
		expect(api.requests).toHaveLength(0);
	});
	test('an empty custom Base URL fails at once, saying what to set, and never shows the key', async () => {
		const error = await activate({ baseUrl: '' });
		expect(error?.message).toMatch(/Base URL is empty: with Environment Custom, set it/);
		expect(error.message).not.toContain(DEFAULT_CREDENTIALS.apiKey);
	});
	test('a key without permission (403) fails with a how-to in the message, never the key', async () => {
		api.on('GET', '/v1/account', {
			status: 403,
			body: { error: { code: 'forbidden', message: 'Forbidden' } },
		});
		const error = await activate({});
		expect(error?.message).toMatch(/403|Forbidden|permission/i);
		expect(error.message).not.toContain(DEFAULT_CREDENTIALS.apiKey);
	});
	test('activation without an API key fails before any request and says where keys are made', async () => {
		await expect(
			runHook({
				parameters: params(),
				method: 'create',
				credentials: { ...DEFAULT_CREDENTIALS, apiKey: ' ' },
			}),
		).rejects.toThrow(
			/no API Key: create one in the dashboard \(Settings → Developer → API keys\)/,
		);
		expect(api.requests).toHaveLength(0);
	});
	test('activation with a rejected key fails with the API error and the how-to in its message', async () => {
		api.on('GET', '/v1/account', { status: 401, body: F.problem(401) });
		await expect(runHook({ parameters: params(), method: 'create' })).rejects.toThrow(
			/Unauthorized.*Check the API key in the credential and that its Environment matches the key/,
		);
		const sandbox = mockApi(dist('nodes/shared/constants.js').SERVERS.sandbox);
		sandbox.on('GET', '/v1/account', { status: 401, body: F.problem(401) });
		const sandboxWithLiveKey = {
			...DEFAULT_CREDENTIALS,
			environment: 'sandbox',
			apiKey: 'usgm_live_0123456789',
		};
		await expect(
			runHook({ parameters: params(), method: 'create', credentials: sandboxWithLiveKey }),
		).rejects.toThrow(/Unauthorized.*switch Environment to Production/);
	});
});
