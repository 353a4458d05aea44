// Security and reliability guarantees that cut across the nodes: bodies n8n cannot hand over, options
// that are not numbers, IDs and file names from outside, redirects, timeouts, file hosts, and
// split reads. Each describe block is one guarantee.
import { beforeEach, describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { mockApi, resetNock } from '../../support/api.mjs';
import {
	DEFAULT_CREDENTIALS,
	dist,
	runHook,
	runNode,
	runWebhook,
} from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';
import { queryMails } from '../../simulator/mail-query.mjs';

const { nextDelay } = dist('nodes/shared/transport/retry.js');
const { fileNameOf, safeFileName } = dist('nodes/shared/transport/download.js');
const { isPrivateHost } = dist('nodes/shared/transport/hosts.js');
const { asProblem, MAX_PROBLEM_TEXT } = dist('nodes/shared/transport/errors.js');
const { segment } = dist('nodes/shared/transport/query.js');

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});

const trigger = (options = {}) => ({
	events: ['new-mail', 'scan-update', 'open-update', 'shipment-update'],
	options,
});
const newWorkflowId = () => `wf-hardening-${Math.random().toString(36).slice(2)}`;

describe('a body n8n cannot hand over starts nothing', () => {
	const unreadable = (message) => ({
		headers: { 'content-type': 'multipart/form-data; boundary=x' },
		body: {},
		readRawBody: async () => {
			throw new Error(message);
		},
	});

	test('an unreadable body (a multipart form, a broken stream) is answered 400, not thrown', async () => {
		const run = await runWebhook({
			parameters: trigger(),
			request: unreadable('Unexpected end of form'),
		});
		expect(run.response.statusCode).toBe(400);
		expect(run.result).toEqual({ noWebhookResponse: true });
	});

	test("a body over n8n's size limit is answered 413", async () => {
		const run = await runWebhook({
			parameters: trigger(),
			request: unreadable('request entity too large'),
		});
		expect(run.response.statusCode).toBe(413);
		expect(run.result.workflowData).toBeUndefined();
	});
});

describe('a tolerance or duplicate window that is not a number never turns a check off', () => {
	test('a stale delivery is still refused when the tolerance evaluates to NaN', async () => {
		const stale = request(payloads['new-mail'], { timestamp: Date.now() - 60 * 60_000 });
		const run = await runWebhook({
			parameters: trigger({ toleranceMinutes: Number.NaN }),
			request: stale,
			workflowId: newWorkflowId(),
		});
		expect(run.response.statusCode).toBe(401);
		expect(run.result.workflowData).toBeUndefined();
	});

	test('a copy is still a duplicate when the window evaluates to NaN', async () => {
		const workflowId = newWorkflowId();
		const parameters = trigger({ duplicateWindowMinutes: Number.NaN });
		const first = await runWebhook({
			parameters,
			request: request({ ...payloads['new-mail'], id: 7001 }),
			workflowId,
		});
		expect(first.result.workflowData).toBeDefined();
		const second = await runWebhook({
			parameters,
			request: request({ ...payloads['new-mail'], id: 7001 }),
			staticData: first.staticData,
			workflowId,
		});
		expect(second.result.workflowData).toBeUndefined();
		expect(second.result.webhookResponse.ignored).toBe('duplicate');
	});

	test('activation refuses a window that is not a number, naming the option', async () => {
		api.on('GET', '/v1/account', { body: F.account() });
		await expect(
			runHook({
				parameters: trigger({ toleranceMinutes: Number.NaN }),
				method: 'create',
				workflowId: newWorkflowId(),
			}),
		).rejects.toThrow(/Timestamp Tolerance \(Minutes\) must be a number of at least 1/);
		await expect(
			runHook({
				parameters: trigger({ duplicateWindowMinutes: -5 }),
				method: 'create',
				workflowId: newWorkflowId(),
			}),
		).rejects.toThrow(/Duplicate Window/);
	});
});

describe('the credential is read again only when a new secret could change the answer', () => {
	test('a stale delivery after a good one is refused from the kept credential, without a new read', async () => {
		const workflowId = newWorkflowId();
		const good = await runWebhook({
			parameters: trigger(),
			request: request({ ...payloads['new-mail'], id: 7101 }),
			workflowId,
		});
		expect(good.credentialLoads).toBe(1);
		const stale = await runWebhook({
			parameters: trigger(),
			request: request(
				{ ...payloads['new-mail'], id: 7102 },
				{ timestamp: Date.now() - 60 * 60_000 },
			),
			workflowId,
		});
		expect(stale.response.statusCode).toBe(401);
		expect(stale.credentialLoads).toBe(0);
		const unsigned = await runWebhook({
			parameters: trigger(),
			request: {
				headers: { 'content-type': 'application/json' },
				rawBody: Buffer.from('{}'),
				body: {},
			},
			workflowId,
		});
		expect(unsigned.response.statusCode).toBe(401);
		expect(unsigned.credentialLoads).toBe(0);
	});

	test('a signature mismatch still reads the credential again (a rotated secret works at once)', async () => {
		const workflowId = newWorkflowId();
		await runWebhook({
			parameters: trigger(),
			request: request({ ...payloads['new-mail'], id: 7201 }),
			workflowId,
		});
		const rotated = { ...DEFAULT_CREDENTIALS, webhookSecret: 'whsec_rotated_7777777777' };
		const run = await runWebhook({
			parameters: trigger(),
			credentials: rotated,
			request: request({ ...payloads['new-mail'], id: 7202 }, { secret: rotated.webhookSecret }),
			workflowId,
		});
		expect(run.result.workflowData).toBeDefined();
		expect(run.credentialLoads).toBe(1);
	});
});

describe('malformed problem details keep status and request_id; long texts are clipped', () => {
	for (const errors of [{}, [null], 'oops', [{ field: 'x', message: { nested: true } }]]) {
		test(`errors = ${JSON.stringify(errors)}`, async () => {
			const body = { ...F.problem(422), errors };
			api.on('POST', '/v1/mails/1001/undiscard', { status: 422, body });
			const { error } = await runNode({
				parameters: { resource: 'mail', operation: 'undiscard', mailId: '1001' },
			});
			expect(error.httpCode).toBe('422');
			expect(error.context).toMatchObject({
				status: 422,
				requestId: body.request_id,
				code: body.code,
			});
			expect(error.description).toContain(`request_id ${body.request_id}`);
		});
	}

	test('a huge detail is clipped, and says how much was left out', () => {
		const problem = asProblem({ title: 'Bad', detail: 'x'.repeat(50_000) });
		expect(problem.detail.length).toBeLessThan(MAX_PROBLEM_TEXT + 50);
		expect(problem.detail).toMatch(/… \(49000 more characters\)$/);
	});
});

describe('IDs that would change the path are refused before any request', () => {
	const cases = [
		[{ resource: 'scan', operation: 'delete', scanId: '..' }, /Scan ID cannot be "\.\."/],
		[{ resource: 'scan', operation: 'get', scanId: '.' }, /Scan ID cannot be "\."/],
		[
			{ resource: 'scan', operation: 'get', scanId: '={{ { a: 1 } }}' },
			/Scan ID must be text, got an object/,
		],
		[
			{ resource: 'address', operation: 'get', addressId: '={{ ["a", "b"] }}' },
			/Address ID must be text, got a list/,
		],
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

describe('file names from links and headers', () => {
	test('a malformed % escape in the link keeps the download and its raw name', () => {
		expect(fileNameOf('', '/files/scans/100%-bill.pdf', 'fallback.pdf')).toBe('100%-bill.pdf');
		expect(fileNameOf("attachment; filename*=UTF-8''bad%E0%A4%A.pdf", '/x', 'fallback.pdf')).toBe(
			'bad%E0%A4%A.pdf',
		);
	});

	test('Content-Disposition names lose folders and control characters', () => {
		expect(fileNameOf('attachment; filename="../../etc/passwd"', '/x', 'f.pdf')).toBe('passwd');
		expect(fileNameOf("attachment; filename*=UTF-8''..%2F..%2Fsecret.pdf", '/x', 'f.pdf')).toBe(
			'secret.pdf',
		);
		expect(fileNameOf('attachment; filename="a\\\\b\u0007c.pdf"', '/x', 'f.pdf')).toBe('bc.pdf');
		expect(safeFileName('..', 'f.pdf')).toBe('f.pdf');
		expect(safeFileName('x'.repeat(500), 'f.pdf')).toHaveLength(200);
	});
});

describe('a Retry-After of 0 or a past date still waits a minimum', () => {
	const policy = { maxAttempts: 5, budgetMs: 60_000, baseDelayMs: 1_000, maxDelayMs: 20_000 };
	const now = Date.parse('2026-11-23T12:00:00Z');
	test('0 seconds', () =>
		expect(
			nextDelay(
				'GET',
				{ kind: 'status', status: 429, retryAfter: '0' },
				1,
				0,
				now,
				() => 0,
				policy,
			),
		).toBe(500));
	test('a date in the past', () => {
		expect(
			nextDelay(
				'POST',
				{ kind: 'status', status: 429, retryAfter: new Date(now - 60_000).toUTCString() },
				1,
				0,
				now,
				() => 0,
				policy,
			),
		).toBe(500);
	});
	test('a longer Retry-After is honoured as given', () =>
		expect(
			nextDelay(
				'GET',
				{ kind: 'status', status: 429, retryAfter: '3' },
				1,
				0,
				now,
				() => 0,
				policy,
			),
		).toBe(3000));
});

describe('API calls never follow a redirect, so the key and bodies stay on the configured server', () => {
	test('a 307 on POST /v1/bank-accounts is an error naming the target; the target is never called', async () => {
		const nock = (await import('nock')).default;
		let reached = false;
		nock('https://collector.example')
			.post(/.*/)
			.reply(() => {
				reached = true;
				return [201, {}];
			});
		api.on('POST', '/v1/bank-accounts', {
			status: 307,
			body: '',
			headers: { location: 'https://collector.example/steal?token=abc' },
		});
		const { error } = await runNode({
			parameters: {
				resource: 'bankAccount',
				operation: 'create',
				bankName: 'B',
				bankState: 'NY',
				accountNumber: '000123456789',
			},
		});
		expect(error.message).toBe(
			'The API answered POST /v1/bank-accounts with a redirect (307) to https://collector.example; not followed',
		);
		expect(reached).toBe(false);
		// (n8n itself puts the node's parameters into every node error; what the node writes carries neither)
		const written = JSON.stringify({
			message: error.message,
			description: error.description,
			context: error.context,
			response: error.errorResponse,
		});
		expect(written).not.toContain('000123456789');
		expect(written).not.toContain('token=abc');
	});
});

describe('every request has a timeout', () => {
	const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
	test('a server that never answers in time fails the node instead of hanging it', async () => {
		const saved = { ...retryPolicy };
		Object.assign(retryPolicy, { timeoutMs: 150, baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 2 });
		try {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) }, { times: 2, delayMs: 2_000 });
			const began = Date.now();
			const { error } = await runNode({
				parameters: { resource: 'mail', operation: 'get', mailId: '1001' },
			});
			expect(error?.message).toMatch(
				/Could not reach the Virtual Mailbox API \(GET \/v1\/mails\/1001\)/,
			);
			expect(Date.now() - began).toBeLessThan(1_500);
		} finally {
			Object.assign(retryPolicy, saved);
			(await import('nock')).default.abortPendingRequests();
			api.done = () => true;
		}
	});
});

describe('a custom Base URL ending in /v1 reaches the same endpoints', () => {
	for (const suffix of ['/v1', '/v1/', '/V1//']) {
		test(`Base URL …${suffix}`, async () => {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
			const { error, items } = await runNode({
				parameters: { resource: 'mail', operation: 'get', mailId: '1001' },
				credentials: { ...DEFAULT_CREDENTIALS, baseUrl: `${DEFAULT_CREDENTIALS.baseUrl}${suffix}` },
			});
			expect(error).toBeUndefined();
			expect(items[0].json.id).toBe('1001');
			expect(api.requests.map((r) => r.path)).toEqual(['/v1/mails/1001']);
		});
	}
});

describe('deleting a folder by name never hits the wrong one', () => {
	const byName = (value) => ({ __rl: true, mode: 'name', value });
	const del = (name) =>
		runNode({ parameters: { resource: 'folder', operation: 'delete', folderId: byName(name) } });

	test('a name that matches only in letter case is not deleted', async () => {
		api.on('GET', '/v1/folders', { body: [F.folder(1, { name: 'Bills' })] });
		const { error } = await del('bills');
		expect(error.message).toBe('No folder is named "bills"');
		expect(error.description).toMatch(/exact name/);
		expect(api.requests.map((r) => r.method)).toEqual(['GET']);
	});

	test('a name several folders share is refused, naming them', async () => {
		api.on('GET', '/v1/folders', {
			body: [F.folder(1, { name: 'Bills' }), F.folder(2, { name: 'Bills' })],
		});
		const { error } = await del('Bills');
		expect(error.message).toBe('2 folders are named "Bills"');
		expect(error.description).toContain('(ID 1)');
		expect(error.description).toContain('(ID 2)');
		expect(api.requests.map((r) => r.method)).toEqual(['GET']);
	});

	test('a folder this process created by name, renamed since, is not deleted under its old name', async () => {
		const name = `Sender ${Date.now()}`;
		api.on('GET', '/v1/folders', { body: [] });
		api.on('POST', '/v1/folders', { status: 201, body: F.folder(88, { name }) });
		api.on('GET', '/v1/folders', { body: [F.folder(88, { name })] });
		api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) });
		const filed = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: byName(name) },
				options: { createFolderIfMissing: true },
			},
		});
		expect(filed.error).toBeUndefined();
		api.on('GET', '/v1/folders', { body: [F.folder(88, { name: 'Renamed by someone' })] });
		const { error } = await del(name);
		expect(error.message).toBe(`No folder is named "${name}"`);
		expect(api.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
	});

	test('another process (a second worker) created the same new name at the same moment: both file into the oldest, the newer copy is removed', async () => {
		const name = `Same moment ${Date.now()}`;
		api.on('GET', '/v1/folders', { body: [] });
		api.on('POST', '/v1/folders', { status: 201, body: F.folder(90, { name }) });
		api.on('GET', '/v1/folders', { body: [F.folder(90, { name }), F.folder(89, { name })] });
		api.on('DELETE', '/v1/folders/90', { status: 204 });
		api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: byName(name) },
				options: { createFolderIfMissing: true },
			},
		});
		expect(error).toBeUndefined();
		expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /v1/folders',
			'POST /v1/folders',
			'GET /v1/folders',
			'DELETE /v1/folders/90',
			'PATCH /v1/mails/1001',
		]);
		expect(api.requests.at(-1).body).toEqual({ folder_id: '89' });
	});

	test('filing into a name several folders share takes the oldest, every time', async () => {
		api.on('GET', '/v1/folders', {
			body: [
				F.folder(9, { name: 'Taxes' }),
				F.folder(4, { name: 'taxes' }),
				F.folder(5, { name: 'Taxes' }),
			],
		});
		api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: byName('Taxes') },
			},
		});
		expect(error).toBeUndefined();
		expect(api.requests[1].body).toEqual({ folder_id: '5' });
	});
});

describe('a same-status update with new content is a new event; a copy is not', () => {
	const workflowId = () => `wf-content-${Math.random().toString(36).slice(2)}`;
	test('tracking data filled in on an unchanged shipment status starts the workflow again', async () => {
		const id = workflowId();
		const first = await runWebhook({
			parameters: trigger(),
			request: request({ ...payloads['shipment-update'], tracking_data: '' }),
			workflowId: id,
		});
		expect(first.result.workflowData).toBeDefined();
		const filled = await runWebhook({
			parameters: trigger(),
			request: request({ ...payloads['shipment-update'], tracking_data: '1Z999AA10123456784' }),
			staticData: first.staticData,
			workflowId: id,
		});
		expect(filled.result.workflowData).toBeDefined();
	});

	test('an AI summary added to a completed scan starts the workflow again', async () => {
		const id = workflowId();
		const { ai_summary: _summary, ...bare } = payloads['scan-update'];
		const first = await runWebhook({
			parameters: trigger(),
			request: request(bare),
			workflowId: id,
		});
		const summarized = await runWebhook({
			parameters: trigger(),
			request: request({ ...bare, ai_summary: 'Electric bill, $84.20 due 12 Dec' }),
			staticData: first.staticData,
			workflowId: id,
		});
		expect(summarized.result.workflowData).toBeDefined();
	});

	test('a copy whose pre-signed link was signed anew is still a duplicate', async () => {
		const id = workflowId();
		const first = await runWebhook({
			parameters: trigger(),
			request: request(payloads['new-mail']),
			workflowId: id,
		});
		const copy = await runWebhook({
			parameters: trigger(),
			request: request({
				...payloads['new-mail'],
				image_url: `${payloads['new-mail'].image_url}&resigned=1`,
			}),
			staticData: first.staticData,
			workflowId: id,
		});
		expect(copy.result.webhookResponse?.ignored).toBe('duplicate');
	});
});

describe('a split read proves its counts again at the end', () => {
	// The split of a sequential read (Max Parallel Requests 1): a change is read once more, as in a concurrent read (transport/concurrent-list.test.mjs).
	const getAll = {
		resource: 'mail',
		operation: 'getAll',
		returnAll: true,
		filters: {},
		options: { maxParallelRequests: 1 },
	};

	test('an item moving between parts mid-read is read once more: every item once, the moved one where it is now', async () => {
		const mails = F.bulkMail(12_000, (n) => ({ mail_status: n % 2 ? 'inbox' : 'archived' }));
		let inboxPages = 0;
		api.serveList('/v1/mails', (params) => {
			if (
				params.getAll('status').join() === 'inbox' &&
				params.has('cursor') &&
				++inboxPages === 3
			) {
				// archive the newest inbox item (already read) while the read goes on
				const moved = mails.find((m) => m.mail_status === 'inbox');
				moved.mail_status = 'archived';
			}
			return queryMails(mails, params);
		});
		const { error, items } = await runNode({ parameters: getAll });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.id)).toEqual(
			queryMails(mails, new URLSearchParams('sort=newest')).map((m) => m.id),
		);
	});

	test('a part that grows during every read fails the run instead of being cut short', async () => {
		const mails = F.bulkMail(12_000, (n) => ({ mail_status: n % 2 ? 'inbox' : 'archived' }));
		let archivedPages = 0;
		api.serveList('/v1/mails', (params) => {
			if (
				params.getAll('status').join() === 'archived' &&
				params.has('cursor') &&
				++archivedPages % 2 === 0
			)
				mails.push(
					...F.bulkMail(1, () => ({
						id: String(900_000 + archivedPages),
						mail_status: 'archived',
					})),
				);
			return queryMails(mails, params);
		});
		const { error, items } = await runNode({ parameters: getAll });
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(/The list changed while it was being read, twice/);
	});
});

describe('file links reach only public https hosts, within a size cap', () => {
	const production = { ...DEFAULT_CREDENTIALS, environment: 'production' };
	const withLink = (image_url) =>
		request({ ...payloads['new-mail'], id: Math.floor(Math.random() * 1e9), image_url });
	const download = async (link, { credentials = production, options = {} } = {}) => {
		const run = await runWebhook({
			parameters: trigger({ downloadFile: true, ...options }),
			request: withLink(link),
			credentials,
			workflowId: newWorkflowId(),
		});
		const [item] = run.result.workflowData?.[0] ?? [];
		expect(item).toBeDefined(); // the event is never dropped
		return item;
	};

	for (const [link, reason] of [
		['https://169.254.169.254/latest/meta-data', /private, loopback or link-local/],
		['https://127.0.0.1:8080/x', /private, loopback or link-local/],
		['https://10.1.2.3/x', /private, loopback or link-local/],
		['https://[::1]/x', /private, loopback or link-local/],
		['http://files.vmb.test/scan.pdf', /only https links are downloaded, not http/],
		['file:///etc/passwd', /only https links are downloaded, not file/],
	]) {
		test(`refused before any request: ${link}`, async () => {
			const item = await download(link);
			expect(item.json.download_error).toMatch(reason);
			expect(item.binary).toBeUndefined();
		});
	}

	test('the custom environment (the local simulator) may use its own plain-http host, nothing else over http', async () => {
		expect(isPrivateHost('127.0.0.1')).toBe(true);
		const nock = (await import('nock')).default;
		nock('http://vmb.test')
			.get('/files/e.jpg')
			.reply(200, Buffer.from('jpeg'), { 'content-type': 'image/jpeg' });
		const item = await download('http://vmb.test/files/e.jpg', {
			credentials: DEFAULT_CREDENTIALS,
		});
		expect(item.json.download_error).toBeUndefined();
		expect(item.binary.data.mimeType).toBe('image/jpeg');
		const other = await download('http://elsewhere.test/e.jpg', {
			credentials: DEFAULT_CREDENTIALS,
		});
		expect(other.json.download_error).toMatch(/only https links/);
	});

	test('a file over Max File Size is not downloaded; the item says why', async () => {
		const nock = (await import('nock')).default;
		nock('https://files.vmb.test')
			.get('/big.pdf')
			.reply(200, Buffer.alloc(3 * 1024 * 1024, 1), { 'content-type': 'application/pdf' });
		const item = await download('https://files.vmb.test/big.pdf', {
			options: { maxFileSizeMb: 1 },
		});
		expect(item.json.download_error).toBe(
			'The file was not downloaded: the file is larger than 1 MB (Max File Size)',
		);
		expect(item.binary).toBeUndefined();
	});

	test('a redirect is followed only where the link itself could go', async () => {
		const nock = (await import('nock')).default;
		let reachedPrivate = false;
		nock('https://files.vmb.test')
			.get('/to-private')
			.reply(302, '', { location: 'https://10.0.0.5/secret' });
		nock('https://10.0.0.5')
			.get(/.*/)
			.reply(() => {
				reachedPrivate = true;
				return [200, 'secret'];
			});
		const refused = await download('https://files.vmb.test/to-private');
		expect(refused.json.download_error).toMatch(/private, loopback or link-local/);
		expect(reachedPrivate).toBe(false);
		nock('https://files.vmb.test')
			.get('/to-cdn')
			.reply(302, '', { location: 'https://cdn.vmb.test/f/scan.pdf?sig=1' });
		nock('https://cdn.vmb.test')
			.get('/f/scan.pdf')
			.query(true)
			.reply(200, Buffer.from('%PDF'), { 'content-type': 'application/pdf' });
		const followed = await download('https://files.vmb.test/to-cdn');
		expect(followed.json.download_error).toBeUndefined();
		expect(followed.binary.data.fileName).toBe('scan.pdf');
	});
});

describe('the webhook trigger answers within a bound whatever its enrichment waits for', () => {
	const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
	test('a slow Add Full Resource is cut off at the deadline; the event is emitted with the reason', async () => {
		const saved = retryPolicy.answerWithinMs;
		retryPolicy.answerWithinMs = 300;
		try {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) }, { delayMs: 3_000 });
			const began = Date.now();
			const run = await runWebhook({
				parameters: trigger({ includeDetails: true }),
				request: request(payloads['new-mail']),
				workflowId: newWorkflowId(),
			});
			expect(Date.now() - began).toBeLessThan(1_500);
			const [item] = run.result.workflowData[0];
			expect(item.json.id).toBe(payloads['new-mail'].id);
			expect(item.json.enrichment_error).toMatch(/did not finish within 0.3 s/);
			expect(item.json.mail_item).toBeUndefined();
		} finally {
			retryPolicy.answerWithinMs = saved;
			(await import('nock')).default.abortPendingRequests();
			api.done = () => true;
		}
	});

	test('the Add Full Resource read it answered without is stopped: no attempt outlives the answer', async () => {
		// An attempt may last timeoutMs; left running, the read would time out there and be sent again.
		const saved = { ...retryPolicy };
		Object.assign(retryPolicy, {
			answerWithinMs: 300,
			timeoutMs: 600,
			baseDelayMs: 5,
			maxDelayMs: 10,
		});
		try {
			api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) }, { times: 5, delayMs: 3_000 });
			const run = await runWebhook({
				parameters: trigger({ includeDetails: true }),
				request: request(payloads['new-mail']),
				workflowId: newWorkflowId(),
			});
			const [item] = run.result.workflowData[0];
			expect(item.json.enrichment_error).toMatch(/did not finish within 0.3 s/);
			expect(api.requests).toHaveLength(1);
			// Past the attempt's own deadline and the wait before a retry.
			await new Promise((resolve) => setTimeout(resolve, 1_500));
			expect(api.requests).toHaveLength(1);
		} finally {
			Object.assign(retryPolicy, saved);
			(await import('nock')).default.abortPendingRequests();
			api.done = () => true;
		}
	});

	test('an enrichment that finishes in time is in the item', async () => {
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		const run = await runWebhook({
			parameters: trigger({ includeDetails: true }),
			request: request(payloads['new-mail']),
			workflowId: newWorkflowId(),
		});
		const [item] = run.result.workflowData[0];
		expect(item.json.mail_item.id).toBe('1001');
		expect(item.json.enrichment_error).toBeUndefined();
	});
});
