// Findings of the security and reliability review, one test per row (the row number in each name).
// Each failed on the code before its fix.
import { beforeEach, describe, expect, test } from 'vitest';
import * as F from '../support/fixtures.mjs';
import { mockApi, resetNock } from '../support/api.mjs';
import { DEFAULT_CREDENTIALS, dist, runHook, runNode, runWebhook } from '../harness/n8n-core-harness.mjs';
import { payloads, request } from '../support/webhooks.mjs';

const { nextDelay } = dist('nodes/shared/transport/retry.js');
const { fileNameOf, safeFileName } = dist('nodes/shared/transport/request.js');
const { asProblem, MAX_PROBLEM_TEXT } = dist('nodes/shared/transport/errors.js');
const { segment } = dist('nodes/shared/transport/query.js');

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const trigger = (options = {}) => ({ events: ['new-mail', 'scan-update', 'open-update', 'shipment-update'], options });
const newWorkflowId = () => `wf-hardening-${Math.random().toString(36).slice(2)}`;

describe('row 1: a body n8n cannot hand over starts nothing', () => {
	const unreadable = (message) => ({
		headers: { 'content-type': 'multipart/form-data; boundary=x' },
		body: {},
		readRawBody: async () => {
			throw new Error(message);
		},
	});

	test('an unreadable body (a multipart form, a broken stream) is answered 400, not thrown', async () => {
		const run = await runWebhook({ parameters: trigger(), request: unreadable('Unexpected end of form') });
		expect(run.response.statusCode).toBe(400);
		expect(run.result).toEqual({ noWebhookResponse: true });
	});

	test('a body over n8n\'s size limit is answered 413', async () => {
		const run = await runWebhook({ parameters: trigger(), request: unreadable('request entity too large') });
		expect(run.response.statusCode).toBe(413);
		expect(run.result.workflowData).toBeUndefined();
	});
});

describe('row 7: a tolerance or duplicate window that is not a number never turns a check off', () => {
	test('a stale delivery is still refused when the tolerance evaluates to NaN', async () => {
		const stale = request(payloads['new-mail'], { timestamp: Date.now() - 60 * 60_000 });
		const run = await runWebhook({ parameters: trigger({ toleranceMinutes: Number.NaN }), request: stale, workflowId: newWorkflowId() });
		expect(run.response.statusCode).toBe(401);
		expect(run.result.workflowData).toBeUndefined();
	});

	test('a copy is still a duplicate when the window evaluates to NaN', async () => {
		const workflowId = newWorkflowId();
		const parameters = trigger({ duplicateWindowMinutes: Number.NaN });
		const first = await runWebhook({ parameters, request: request({ ...payloads['new-mail'], id: 7001 }), workflowId });
		expect(first.result.workflowData).toBeDefined();
		const second = await runWebhook({ parameters, request: request({ ...payloads['new-mail'], id: 7001 }), staticData: first.staticData, workflowId });
		expect(second.result.workflowData).toBeUndefined();
		expect(second.result.webhookResponse.ignored).toBe('duplicate');
	});

	test('activation refuses a window that is not a number, naming the option', async () => {
		api.on('GET', '/v1/account', { body: F.account() });
		await expect(runHook({ parameters: trigger({ toleranceMinutes: Number.NaN }), method: 'create', workflowId: newWorkflowId() })).rejects.toThrow(
			/Timestamp Tolerance \(Minutes\) must be a number of at least 1/,
		);
		await expect(runHook({ parameters: trigger({ duplicateWindowMinutes: -5 }), method: 'create', workflowId: newWorkflowId() })).rejects.toThrow(/Duplicate Window/);
	});
});

describe('row 8: the credential is read again only when a new secret could change the answer', () => {
	test('a stale delivery after a good one is refused from the kept credential, without a new read', async () => {
		const workflowId = newWorkflowId();
		const good = await runWebhook({ parameters: trigger(), request: request({ ...payloads['new-mail'], id: 7101 }), workflowId });
		expect(good.credentialLoads).toBe(1);
		const stale = await runWebhook({ parameters: trigger(), request: request({ ...payloads['new-mail'], id: 7102 }, { timestamp: Date.now() - 60 * 60_000 }), workflowId });
		expect(stale.response.statusCode).toBe(401);
		expect(stale.credentialLoads).toBe(0);
		const unsigned = await runWebhook({ parameters: trigger(), request: { headers: { 'content-type': 'application/json' }, rawBody: Buffer.from('{}'), body: {} }, workflowId });
		expect(unsigned.response.statusCode).toBe(401);
		expect(unsigned.credentialLoads).toBe(0);
	});

	test('a signature mismatch still reads the credential again (a rotated secret works at once)', async () => {
		const workflowId = newWorkflowId();
		await runWebhook({ parameters: trigger(), request: request({ ...payloads['new-mail'], id: 7201 }), workflowId });
		const rotated = { ...DEFAULT_CREDENTIALS, webhookSecret: 'whsec_rotated_7777777777' };
		const run = await runWebhook({ parameters: trigger(), credentials: rotated, request: request({ ...payloads['new-mail'], id: 7202 }, { secret: rotated.webhookSecret }), workflowId });
		expect(run.result.workflowData).toBeDefined();
		expect(run.credentialLoads).toBe(1);
	});
});

describe('row 12: malformed problem details keep status and request_id; long texts are clipped', () => {
	for (const errors of [{}, [null], 'oops', [{ field: 'x', message: { nested: true } }]]) {
		test(`errors = ${JSON.stringify(errors)}`, async () => {
			const body = { ...F.problem(422), errors };
			api.on('POST', '/v1/mails/1001/undiscard', { status: 422, body });
			const { error } = await runNode({ parameters: { resource: 'mail', operation: 'undiscard', mailId: '1001' } });
			expect(error.httpCode).toBe('422');
			expect(error.context).toMatchObject({ status: 422, requestId: body.request_id, code: body.code });
			expect(error.description).toContain(`request_id ${body.request_id}`);
		});
	}

	test('a huge detail is clipped, and says how much was left out', () => {
		const problem = asProblem({ title: 'Bad', detail: 'x'.repeat(50_000) });
		expect(problem.detail.length).toBeLessThan(MAX_PROBLEM_TEXT + 50);
		expect(problem.detail).toMatch(/… \(49000 more characters\)$/);
	});
});

describe('row 13: ids that would change the path are refused before any request', () => {
	const cases = [
		[{ resource: 'scan', operation: 'delete', scanId: '..' }, /Scan ID cannot be "\.\."/],
		[{ resource: 'scan', operation: 'get', scanId: '.' }, /Scan ID cannot be "\."/],
		[{ resource: 'scan', operation: 'get', scanId: '={{ { a: 1 } }}' }, /Scan ID must be text, got an object/],
		[{ resource: 'address', operation: 'get', addressId: '={{ ["a", "b"] }}' }, /Address ID must be text, got a list/],
	];
	for (const [parameters, message] of cases) {
		test(`${parameters.resource} ${parameters.operation} ${JSON.stringify(Object.values(parameters)[2])}`, async () => {
			const { error } = await runNode({ parameters });
			expect(error?.message).toMatch(message);
			expect(api.requests).toHaveLength(0);
		});
	}

	test('a segment made of dots is encoded, never left to be resolved as a path', () => {
		expect(segment('..')).toBe('%2E%2E');
		expect(segment('.')).toBe('%2E');
		expect(segment('a.b')).toBe('a.b');
	});
});

describe('row 14: file names from links and headers', () => {
	test('a malformed % escape in the link keeps the download and its raw name', () => {
		expect(fileNameOf('', '/files/scans/100%-bill.pdf', 'fallback.pdf')).toBe('100%-bill.pdf');
		expect(fileNameOf('attachment; filename*=UTF-8\'\'bad%E0%A4%A.pdf', '/x', 'fallback.pdf')).toBe('bad%E0%A4%A.pdf');
	});

	test('Content-Disposition names lose folders and control characters', () => {
		expect(fileNameOf('attachment; filename="../../etc/passwd"', '/x', 'f.pdf')).toBe('passwd');
		expect(fileNameOf('attachment; filename*=UTF-8\'\'..%2F..%2Fsecret.pdf', '/x', 'f.pdf')).toBe('secret.pdf');
		expect(fileNameOf('attachment; filename="a\\\\b\u0007c.pdf"', '/x', 'f.pdf')).toBe('bc.pdf');
		expect(safeFileName('..', 'f.pdf')).toBe('f.pdf');
		expect(safeFileName('x'.repeat(500), 'f.pdf')).toHaveLength(200);
	});
});

describe('row 15: Retry-After of 0 or a past date still waits a minimum', () => {
	const policy = { maxAttempts: 5, budgetMs: 60_000, baseDelayMs: 1_000, maxDelayMs: 20_000 };
	const now = Date.parse('2026-11-23T12:00:00Z');
	test('0 seconds', () => expect(nextDelay('GET', { kind: 'status', status: 429, retryAfter: '0' }, 1, 0, now, () => 0, policy)).toBe(500));
	test('a date in the past', () => {
		expect(nextDelay('POST', { kind: 'status', status: 429, retryAfter: new Date(now - 60_000).toUTCString() }, 1, 0, now, () => 0, policy)).toBe(500);
	});
	test('a longer Retry-After is honoured as given', () => expect(nextDelay('GET', { kind: 'status', status: 429, retryAfter: '3' }, 1, 0, now, () => 0, policy)).toBe(3000));
});

describe('row 4: API calls never follow a redirect, so the key and bodies stay on the configured server', () => {
	test('a 307 on POST /v1/bank-accounts is an error naming the target; the target is never called', async () => {
		const nock = (await import('nock')).default;
		let reached = false;
		nock('https://collector.example').post(/.*/).reply(() => {
			reached = true;
			return [201, {}];
		});
		api.on('POST', '/v1/bank-accounts', { status: 307, body: '', headers: { location: 'https://collector.example/steal?token=abc' } });
		const { error } = await runNode({ parameters: { resource: 'bankAccount', operation: 'create', bankName: 'B', bankState: 'NY', accountNumber: '000123456789' } });
		expect(error.message).toBe('The API answered POST /v1/bank-accounts with a redirect (307) to https://collector.example; not followed');
		expect(reached).toBe(false);
		// (n8n itself puts the node's parameters into every node error; what the node writes carries neither)
		const written = JSON.stringify({ message: error.message, description: error.description, context: error.context, response: error.errorResponse });
		expect(written).not.toContain('000123456789');
		expect(written).not.toContain('token=abc');
	});
});

describe('row 6: every request has a timeout', () => {
	const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
	test('a server that never answers in time fails the node instead of hanging it', async () => {
		const saved = { ...retryPolicy };
		Object.assign(retryPolicy, { timeoutMs: 150, baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 2 });
		try {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) }, { times: 2, delayMs: 2_000 });
			const began = Date.now();
			const { error } = await runNode({ parameters: { resource: 'mail', operation: 'get', mailId: '1001' } });
			expect(error?.message).toMatch(/Could not reach the Virtual Mailbox API \(GET \/v1\/mails\/1001\)/);
			expect(Date.now() - began).toBeLessThan(1_500);
		} finally {
			Object.assign(retryPolicy, saved);
			(await import('nock')).default.abortPendingRequests();
			api.done = () => true;
		}
	});
});

describe('row 16: a custom Base URL ending in /v1 reaches the same endpoints', () => {
	for (const suffix of ['/v1', '/v1/', '/V1//']) {
		test(`Base URL …${suffix}`, async () => {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
			const { error, items } = await runNode({ parameters: { resource: 'mail', operation: 'get', mailId: '1001' }, credentials: { ...DEFAULT_CREDENTIALS, baseUrl: `${DEFAULT_CREDENTIALS.baseUrl}${suffix}` } });
			expect(error).toBeUndefined();
			expect(items[0].json.id).toBe('1001');
			expect(api.requests.map((r) => r.path)).toEqual(['/v1/mails/1001']);
		});
	}
});
