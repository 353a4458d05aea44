import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import {
	DEFAULT_CREDENTIALS,
	dist,
	loadPackage,
	runNode,
} from '../../harness/n8n-core-harness.mjs';

const { SERVERS } = dist('nodes/shared/constants.js');
const { keyEnvironmentHint } = dist('nodes/shared/transport/errors.js');
const { baseUrlOf } = dist('nodes/shared/transport/credentials.js');
const { Workflow } = await import('n8n-workflow');

beforeEach(() => resetNock());

async function credentialType() {
	const loader = await loadPackage();
	return loader.credentialTypes.virtualMailboxApi.type;
}

/** Evaluate one of the credential's "={{ }}" strings as n8n does, against $credentials. */
function evaluate(expression, credentials) {
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
	const node = { id: 'n', name: 'n', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} };
	return workflow.expression.getSimpleParameterValue(
		node,
		expression,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
}

describe('credential virtualMailboxApi', () => {
	test("fields and environments are the contract's", async () => {
		const type = await credentialType();
		expect(type.name).toBe('virtualMailboxApi');
		expect(type.properties.map((p) => p.name)).toEqual([
			'environment',
			'baseUrl',
			'apiKey',
			'webhookSecret',
			'webhookRotation',
			'previousWebhookSecret',
		]);
		expect(type.properties[0].options.map((o) => o.value)).toEqual([
			'production',
			'sandbox',
			'custom',
		]);
		for (const secret of ['apiKey', 'webhookSecret', 'previousWebhookSecret']) {
			expect(type.properties.find((p) => p.name === secret).typeOptions.password).toBe(true);
		}
	});

	test('every field a user fills in has its help as a hint under it, not only on hover', async () => {
		const type = await credentialType();
		for (const name of [
			'environment',
			'baseUrl',
			'apiKey',
			'webhookSecret',
			'webhookRotation',
			'previousWebhookSecret',
		]) {
			const field = type.properties.find((p) => p.name === name);
			expect(field.hint, name).toMatch(/\w{3,}/);
		}
		expect(type.properties.find((p) => p.name === 'apiKey').hint).toMatch(
			/Settings → Developer → API keys.*production \(live\) key works only with Production/,
		);
		expect(type.properties.find((p) => p.name === 'baseUrl').hint).toContain(
			'http://127.0.0.1:4010',
		);
	});

	test('Previous Webhook Secret shows only when the user says the secret is being rotated', async () => {
		const type = await credentialType();
		const rotating = type.properties.find((p) => p.name === 'webhookRotation');
		expect(rotating).toMatchObject({ type: 'boolean', default: false });
		expect(type.properties.find((p) => p.name === 'previousWebhookSecret').displayOptions).toEqual({
			show: { webhookRotation: [true] },
		});
		// As n8n's credentials form decides what to show (NodeHelpers.displayParameter).
		const { NodeHelpers } = await import('n8n-workflow');
		const previous = type.properties.find((p) => p.name === 'previousWebhookSecret');
		expect(
			NodeHelpers.displayParameter(
				{ environment: 'production', webhookRotation: false },
				previous,
				null,
			),
		).toBe(false);
		expect(
			NodeHelpers.displayParameter(
				{ environment: 'production', webhookRotation: true },
				previous,
				null,
			),
		).toBe(true);
	});

	test('the test request hits GET /v1/account on the selected environment (same servers as the transport)', async () => {
		const { test: check } = await credentialType();
		expect(check.request.url).toBe('/v1/account');
		const base = (credentials) => evaluate(check.request.baseURL, credentials);
		expect(base({ environment: 'production' })).toBe(SERVERS.production);
		expect(base({ environment: 'sandbox' })).toBe(SERVERS.sandbox);
		expect(base({ environment: 'custom', baseUrl: 'http://127.0.0.1:4010/' })).toBe(
			'http://127.0.0.1:4010',
		);
		expect(check.rules.find((r) => r.properties.value === 401).properties.message).toMatch(
			/production \(live\) key works only with Production and a sandbox \(test\) key only with Sandbox/,
		);
	});

	test('the test request takes a custom Base URL exactly as the nodes do (with /v1, slashes, spaces); Base URL is required with Custom', async () => {
		const type = await credentialType();
		const base = (credentials) => evaluate(type.test.request.baseURL, credentials);
		for (const baseUrl of [
			'http://127.0.0.1:4010',
			'http://127.0.0.1:4010/v1',
			'http://127.0.0.1:4010/v1/',
			' https://proxy.example/api/V1// ',
			'https://proxy.example/v1x',
			'HTTP://vmb.test',
			'Http://vmb.test/v1/',
			'http://VMB.test:80/v1',
			' http://vmb.test/v1 ',
			'http://vmb.test/V1//',
			'HTTPS://Proxy.example/V1/',
			'\thttp://vmb.test/v1\n',
			'',
			'   ',
		]) {
			const credentials = { environment: 'custom', baseUrl };
			expect(base(credentials), baseUrl).toBe(baseUrlOf(credentials));
		}
		expect(base({ environment: 'custom', baseUrl: 'http://127.0.0.1:4010/v1' })).toBe(
			'http://127.0.0.1:4010',
		);
		const baseUrl = type.properties.find((p) => p.name === 'baseUrl');
		expect(baseUrl.required).toBe(true);
		expect(baseUrl.displayOptions).toEqual({ show: { environment: ['custom'] } });
	});

	test('authentication is a bearer header set without n8n expressions (n8n 2.x has no expression engine at hand on a trigger timer), usable by the HTTP Request node', async () => {
		const api = mockApi();
		api.on('GET', '/v1/account', { body: F.account() });
		await runNode({ parameters: { resource: 'account', operation: 'get' } });
		expect(api.requests[0].headers.authorization).toBe(`Bearer ${DEFAULT_CREDENTIALS.apiKey}`);
		// n8n calls a function as is; a declarative header is rendered as an expression.
		const { authenticate } = await credentialType();
		expect(typeof authenticate).toBe('function');
		expect(
			await authenticate({ apiKey: 'sk_1' }, { url: '/v1/mails', headers: { accept: 'x' } }),
		).toEqual({ url: '/v1/mails', headers: { accept: 'x', Authorization: 'Bearer sk_1' } });
	});

	test('production and sandbox credentials reach the provider servers', async () => {
		for (const environment of ['production', 'sandbox']) {
			const api = mockApi(SERVERS[environment]);
			api.on('GET', '/v1/account', { body: F.account() });
			const { error } = await runNode({
				parameters: { resource: 'account', operation: 'get' },
				credentials: { ...DEFAULT_CREDENTIALS, environment },
			});
			expect(error).toBeUndefined();
			expect(api.done()).toBe(true);
		}
	});

	test('a 401 names a likely key/environment mismatch', async () => {
		expect(keyEnvironmentHint('production', 'test_sk_1')).toMatch(/switch Environment to Sandbox/);
		expect(keyEnvironmentHint('sandbox', 'sk_live_1')).toMatch(/switch Environment to Production/);
		expect(keyEnvironmentHint('production', 'sk_live_1')).toBeUndefined();
		expect(keyEnvironmentHint('custom', 'test_1')).toBeUndefined();
		const api = mockApi(SERVERS.production);
		api.on('GET', '/v1/account', { status: 401, body: F.problem(401) });
		const { error } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { ...DEFAULT_CREDENTIALS, environment: 'production', apiKey: 'test_sk_abcdef' },
		});
		expect(error.description).toMatch(/looks like a sandbox \(test\) key/);
		expect(error.description).not.toContain('test_sk_abcdef');
	});
});

// A Base URL the connection test accepts must work in the nodes, also for odd spellings.
describe('credential test vs the nodes, odd Base URLs', () => {
	afterEach(() => resetNock());
	for (const baseUrl of [
		'HTTP://vmb.test',
		'Http://vmb.test/v1/',
		'http://VMB.test:80/v1',
		' http://vmb.test/v1 ',
		'http://vmb.test/V1//',
	]) {
		test(`"${baseUrl}": the URL the connection test calls is the URL Account → Get calls`, async () => {
			const type = (await loadPackage()).credentialTypes.virtualMailboxApi.type;
			const credentials = { ...DEFAULT_CREDENTIALS, baseUrl };
			const tested = new URL(
				`${evaluate(type.test.request.baseURL, credentials)}${type.test.request.url}`,
			).href;
			expect(tested).toBe('http://vmb.test/v1/account');
			const seen = [];
			nock('http://vmb.test')
				.get('/v1/account')
				.reply(200, () => (seen.push('GET /v1/account'), { id: 'acct' }));
			const { error } = await runNode({
				parameters: { resource: 'account', operation: 'get' },
				credentials,
			});
			expect(error?.message).toBeUndefined();
			expect(seen).toEqual(['GET /v1/account']);
		});
	}
});
