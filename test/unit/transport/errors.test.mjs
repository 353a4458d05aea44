import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import http from 'node:http';
import zlib from 'node:zlib';
import nock from 'nock';
import { BASE, mockApi, resetNock } from '../../support/api.mjs';
import { CORE_MAJOR, DEFAULT_CREDENTIALS, dist, runNode } from '../../harness/n8n-core-harness.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const saved = { ...retryPolicy };
beforeAll(() => Object.assign(retryPolicy, { baseDelayMs: 5, maxDelayMs: 20, budgetMs: 2_000 }));
afterAll(() => Object.assign(retryPolicy, saved));

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const getMail = { resource: 'mail', operation: 'get', mailId: '1001' };

describe('problem details become NodeApiError with title, detail, field errors, status, code and request_id', () => {
	for (const status of [400, 401, 403, 404, 409, 422, 500]) {
		test(`${status}`, async () => {
			const body = F.problem(status, {
				detail: `detail for ${status}`,
				errors: [{ field: 'mail_id', message: 'is wrong', code: 'bad' }],
			});
			// POST so that 500 is not retried
			api.on('POST', '/v1/mails/1001/undiscard', { status, body });
			const { error } = await runNode({ parameters: { ...getMail, operation: 'undiscard' } });
			expect(error.message).toBe(`${body.title}: detail for ${status}`);
			expect(error.httpCode).toBe(String(status));
			expect(error.description).toContain('mail_id: is wrong (bad)');
			expect(error.description).toContain(`request_id ${body.request_id}`);
			expect(error.context).toMatchObject({
				status,
				code: body.code,
				requestId: body.request_id,
				title: body.title,
				detail: `detail for ${status}`,
			});
			expect(api.requests).toHaveLength(1);
		});
	}

	test('a non-JSON error body still gives a clear error', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 404,
			body: 'nope',
			headers: { 'content-type': 'text/plain' },
		});
		const { error } = await runNode({ parameters: getMail });
		expect(error.message).toBe('HTTP 404');
		expect(error.description).toContain('GET /v1/mails/1001 → 404');
	});
});

describe('retries', () => {
	test('429 waits for Retry-After (seconds) and then succeeds', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 429,
			body: F.problem(429),
			headers: { 'retry-after': '0' },
		});
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { items, error } = await runNode({ parameters: getMail });
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('1001');
		expect(api.requests).toHaveLength(2);
	});

	test('429 with an HTTP-date Retry-After', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 429,
			body: F.problem(429),
			headers: { 'retry-after': new Date(Date.now() - 1000).toUTCString() },
		});
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({ parameters: getMail });
		expect(error).toBeUndefined();
		expect(api.requests).toHaveLength(2);
	});

	test('POST is retried on 429: the server did not act', async () => {
		api.on('POST', '/v1/folders', {
			status: 429,
			body: F.problem(429),
			headers: { 'retry-after': '0' },
		});
		api.on('POST', '/v1/folders', { status: 201, body: F.folder(3) });
		const { error } = await runNode({
			parameters: { resource: 'folder', operation: 'create', name: 'Bills' },
		});
		expect(error).toBeUndefined();
		expect(api.requests).toHaveLength(2);
	});

	test('a Retry-After beyond the time budget fails at once with the 429', async () => {
		api.on('GET', '/v1/mails/1001', {
			status: 429,
			body: F.problem(429, { detail: 'slow down' }),
			headers: { 'retry-after': '3600' },
		});
		const { error } = await runNode({ parameters: getMail });
		expect(error.httpCode).toBe('429');
		expect(error.message).toBe('Too many requests: slow down');
		expect(api.requests).toHaveLength(1);
	});

	test('429 on every attempt gives up after the attempt limit', async () => {
		api.on(
			'GET',
			'/v1/mails/1001',
			{ status: 429, body: F.problem(429) },
			{ times: retryPolicy.maxAttempts },
		);
		const { error } = await runNode({ parameters: getMail });
		expect(error.httpCode).toBe('429');
		expect(api.requests).toHaveLength(retryPolicy.maxAttempts);
	});

	test('GET is retried on 500 with backoff', async () => {
		api.on('GET', '/v1/mails/1001', { status: 500, body: F.problem(500) }, { times: 2 });
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({ parameters: getMail });
		expect(error).toBeUndefined();
		expect(api.requests).toHaveLength(3);
	});

	test('POST is never retried on 500: the server may have acted', async () => {
		api.on('POST', '/v1/folders', { status: 500, body: F.problem(500) });
		const { error } = await runNode({
			parameters: { resource: 'folder', operation: 'create', name: 'Bills' },
		});
		expect(error.httpCode).toBe('500');
		expect(api.requests).toHaveLength(1);
	});

	test('PATCH and DELETE are not retried on 503 either', async () => {
		api.on('PATCH', '/v1/folders/4', { status: 503, body: F.problem(500, { status: 503 }) });
		const patch = await runNode({
			parameters: {
				resource: 'folder',
				operation: 'update',
				folderId: '4',
				updateFields: { name: 'x' },
			},
		});
		expect(patch.error.httpCode).toBe('503');
		api.on('DELETE', '/v1/folders/4', { status: 503, body: F.problem(500, { status: 503 }) });
		const del = await runNode({
			parameters: { resource: 'folder', operation: 'delete', folderId: '4' },
		});
		expect(del.error.httpCode).toBe('503');
		expect(api.requests).toHaveLength(2);
	});
});

describe('network errors (a loopback server that resets connections)', () => {
	/** Resets the first `resets` connections, then answers 200 with `body`. */
	async function flakyServer(resets, body) {
		const seen = [];
		const server = http.createServer((req, res) => {
			seen.push(`${req.method} ${req.url}`);
			if (seen.length <= resets) return req.socket.destroy();
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
		});
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		nock.enableNetConnect('127.0.0.1');
		const credentials = {
			...DEFAULT_CREDENTIALS,
			baseUrl: `http://127.0.0.1:${server.address().port}`,
		};
		return { seen, credentials, close: () => new Promise((resolve) => server.close(resolve)) };
	}

	test('GET is retried after a connection reset', async () => {
		const server = await flakyServer(2, F.account());
		const { error, items } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: server.credentials,
		});
		await server.close();
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe(F.account().id);
		expect(server.seen).toEqual(Array(3).fill('GET /v1/account'));
	});

	test('POST is not retried after a connection reset, and the error says why', async () => {
		const server = await flakyServer(1, F.folder(1));
		const { error } = await runNode({
			parameters: { resource: 'folder', operation: 'create', name: 'Bills' },
			credentials: server.credentials,
		});
		await server.close();
		expect(server.seen).toEqual(['POST /v1/folders']);
		expect(error.message).toMatch(/Could not reach the Virtual Mailbox API \(POST \/v1\/folders\)/);
		expect(error.description).toMatch(/Not retried/);
	});
});

describe('bad parameters fail before any request, naming the parameter and what is valid', () => {
	const cases = [
		[{ resource: 'mail', operation: 'get', mailId: '={{ "" }}' }, /Mail ID is empty/],
		// n8n's own check of required parameters: 2.x names the parameter, 1.x says the workflow has
		// issues (its editor marks the parameter). Either way no request is made.
		[
			{ resource: 'mail', operation: 'get', mailId: '' },
			CORE_MAJOR >= 2
				? /Parameter "Mail ID" is required/
				: /The workflow has issues and cannot be executed/,
		],
		[
			{ resource: 'mail', operation: 'get', mailId: '12a' },
			/Mail ID must be a numeric string such as "12345", got "12a"/,
		],
		[
			{ resource: 'mail', operation: 'undiscard', mailId: '../account' },
			/Mail ID must be a numeric string/,
		],
		[{ resource: 'scan', operation: 'get', scanId: '  ' }, /Scan ID is empty/],
		[{ resource: 'shipment', operation: 'get', shipmentId: '={{ " " }}' }, /Shipment ID is empty/],
		[
			{ resource: 'folder', operation: 'create', name: 'x', additionalFields: { color: 'red' } },
			/Color must have the form #RRGGBB/,
		],
		[{ resource: 'folder', operation: 'create', name: '={{ "" }}' }, /Name is required/],
		[
			{ resource: 'folder', operation: 'update', folderId: '7', updateFields: {} },
			/Nothing to update/,
		],
		[
			{
				resource: 'folder',
				operation: 'update',
				folderId: { __rl: true, mode: 'id', value: '={{ "abc" }}' },
				updateFields: { name: 'x' },
			},
			/Folder must be a numeric string/,
		],
		[
			{
				resource: 'folder',
				operation: 'delete',
				folderId: { __rl: true, mode: 'list', value: '={{ "" }}' },
			},
			/Folder is empty/,
		],
		[
			{ resource: 'address', operation: 'getDefault', type: 'billing' },
			/Type must be one of shipping, deposit; got "billing"/,
		],
		[
			{
				resource: 'address',
				operation: 'create',
				type: 'shipping',
				name: 'A',
				line1: '1',
				city: 'C',
				state: 'S',
				postalCode: '={{ "" }}',
				country: 'US',
				phoneNumber: '1',
			},
			/Postal Code is required/,
		],
		[
			{
				resource: 'bankAccount',
				operation: 'create',
				bankName: 'B',
				bankState: 'NY',
				accountNumber: '={{ "" }}',
			},
			/Account Number is required/,
		],
		[
			{ resource: 'bankAccount', operation: 'update', bankAccountId: 'x', updateFields: {} },
			/Nothing to update/,
		],
		[
			{
				resource: 'scan',
				operation: 'complete',
				scanId: 's',
				additionalFields: { summary: '={{ [1, 2] }}' },
			},
			/Summary must be a list of strings/,
		],
		[
			{ resource: 'mail', operation: 'getAll', returnAll: false, limit: 0 },
			/Limit must be a whole number of at least 1/,
		],
	];
	for (const [parameters, message] of cases) {
		test(`${parameters.resource} ${parameters.operation}: ${message.source}`, async () => {
			const { error } = await runNode({ parameters });
			expect(error?.message).toMatch(message);
			expect(api.requests).toHaveLength(0);
		});
	}

	test('Complete (Sandbox) refuses production credentials', async () => {
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'complete', scanId: 's' },
			credentials: { ...DEFAULT_CREDENTIALS, environment: 'production' },
		});
		expect(error.message).toMatch(/only works against the sandbox/);
		expect(error.description).toMatch(/Environment is Sandbox/);
		expect(api.requests).toHaveLength(0);
	});
});

describe('secrets never leak', () => {
	const accountNumber = '000123456789';
	test('the API key and the account number appear in no output and no error', async () => {
		const echo = (request) => ({
			status: 422,
			body: F.problem(422, {
				detail: `Rejected ${request.body?.account_number} for key ${request.headers.authorization}`,
				errors: [
					{ field: 'account_number', message: `${request.body?.account_number} is not valid` },
				],
			}),
		});
		api.on('POST', '/v1/bank-accounts', echo);
		api.on('PATCH', `/v1/bank-accounts/${F.bankAccount(1).id}`, {
			body: { ...F.bankAccount(1), account_number: accountNumber },
		});
		api.on('GET', '/v1/mails/1001', {
			status: 401,
			body: F.problem(401, { detail: `Key ${DEFAULT_CREDENTIALS.apiKey} is not valid` }),
		});
		api.on('GET', '/v1/account', (request) => ({
			status: 403,
			body: F.problem(403, { detail: `Forbidden for ${request.headers.authorization}` }),
		}));

		const runs = [
			await runNode({
				parameters: {
					resource: 'bankAccount',
					operation: 'create',
					bankName: 'B',
					bankState: 'NY',
					accountNumber,
				},
			}),
			await runNode({
				parameters: {
					resource: 'bankAccount',
					operation: 'update',
					bankAccountId: F.bankAccount(1).id,
					updateFields: { accountNumber },
				},
			}),
			await runNode({ parameters: getMail }),
			await runNode({ parameters: { resource: 'account', operation: 'get' } }),
			await runNode({ parameters: getMail, continueOnFail: true }).catch((e) => ({ error: e })),
		];
		expect(runs[0].error).toBeDefined();
		expect(runs[1].items[0].json).toEqual(F.bankAccount(1));
		expect(runs[2].error.httpCode).toBe('401');
		expect(runs[3].error).toBeDefined();
		const dump = JSON.stringify(
			runs.map((r) => ({
				items: r.items,
				message: r.error?.message,
				description: r.error?.description,
				context: r.error?.context,
				cause: r.error?.cause,
				stack: r.error?.stack,
				messages: r.error?.messages,
			})),
		);
		expect(dump).toContain('[redacted]');
		expect(dump).not.toContain(accountNumber);
		expect(dump).not.toContain(DEFAULT_CREDENTIALS.apiKey);
	});
});

// API bodies are read as streams (so a deadline can close them) and parsed by parsedBody: they must
// still come out as n8n's json:true gave them. A BOM matters: axios strips it, a plain stream read
// does not, and the body would stay text and the operation fail.
describe('API bodies read as streams come out as n8n parsed them', () => {
	const account = { id: 'acc_1', name: 'Ünïcode Corp', email: 'a@b.example' };

	test('gzip-encoded JSON is decoded', async () => {
		nock(BASE)
			.get('/v1/account')
			.reply(200, zlib.gzipSync(JSON.stringify(account)), {
				'content-type': 'application/json',
				'content-encoding': 'gzip',
			});
		const { error, items } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject(account);
	});

	test('JSON with a UTF-8 byte-order mark is parsed as JSON', async () => {
		nock(BASE)
			.get('/v1/account')
			.reply(
				200,
				Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(account))]),
				{ 'content-type': 'application/json' },
			);
		const { error, items } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject(account);
	});

	test('problem details (application/problem+json) reach the error message', async () => {
		nock(BASE)
			.get('/v1/account')
			.reply(
				422,
				JSON.stringify({
					type: 'about:blank',
					title: 'Bad thing',
					status: 422,
					detail: 'the detail text',
				}),
				{ 'content-type': 'application/problem+json' },
			);
		const { error } = await runNode({ parameters: { resource: 'account', operation: 'get' } });
		expect(`${error?.message} ${error?.description}`).toMatch(/the detail text|Bad thing/);
	});
});
