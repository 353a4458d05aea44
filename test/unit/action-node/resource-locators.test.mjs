// The action node's ID parameters that are resource locators (mail, scan, shipment, address, bank
// account) against a mocked API: saved plain strings, expressions, numbers and By ID values run as
// before, $fromAI (the AI-tool path) reaches the API, and the pickers' list searches fail cleanly
// and find a match past the first page. The simulator-backed picker tests are list-search.test.mjs.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { readFileSync } from 'node:fs';
import {
	DEFAULT_CREDENTIALS,
	loadPackage,
	runListSearch,
	runNode,
} from '../../harness/n8n-core-harness.mjs';
import { resetNock } from '../../support/api.mjs';

const UUID = '3f1c2b9e-8a4d-4c1e-9f55-2b7c1d0e6a90';
let requests;
beforeEach(() => {
	resetNock();
	requests = [];
	for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE']) {
		nock(DEFAULT_CREDENTIALS.baseUrl)
			.persist()
			.intercept(() => true, method)
			.reply(function (uri) {
				requests.push(`${method} ${uri.split('?')[0]}`);
				return [
					200,
					{
						id: '100500',
						uuid: UUID,
						url: `${DEFAULT_CREDENTIALS.baseUrl}/file.pdf`,
						expires_at: '2030-01-01T00:00:00Z',
						data: [],
						next_cursor: null,
					},
				];
			});
	}
});
afterEach(() => resetNock());

// [resource, operation, parameter, kind, extra parameters, expected first request of that id]
const OPS = [
	['mail', 'get', 'mailId', 'numeric', {}, (id) => `GET /v1/mails/${id}`],
	['mail', 'archive', 'mailId', 'numeric', {}, (id) => `POST /v1/mails/${id}/archive`],
	['mail', 'unarchive', 'mailId', 'numeric', {}, (id) => `/v1/mails/${id}/`],
	['mail', 'discard', 'mailId', 'numeric', {}, (id) => `POST /v1/mails/${id}/discard`],
	['mail', 'undiscard', 'mailId', 'numeric', {}, (id) => `/v1/mails/${id}/`],
	[
		'mail',
		'update',
		'mailId',
		'numeric',
		{ updateFields: { isRead: true } },
		(id) => `/v1/mails/${id}`,
	],
	['scan', 'create', 'mailId', 'numeric', { type: 'scan' }, () => 'POST /v1/scans'],
	['scan', 'get', 'scanId', 'text', {}, (id) => `GET /v1/scans/${id}`],
	['scan', 'getSummary', 'scanId', 'text', {}, (id) => `GET /v1/scans/${id}/summary`],
	['scan', 'cancel', 'scanId', 'text', {}, (id) => `POST /v1/scans/${id}/cancel`],
	['scan', 'delete', 'scanId', 'text', {}, (id) => `DELETE /v1/scans/${id}`],
	[
		'scan',
		'download',
		'scanId',
		'text',
		{ binaryPropertyName: 'data' },
		(id) => `GET /v1/scans/${id}/file`,
	],
	['shipment', 'get', 'shipmentId', 'text', {}, (id) => `GET /v1/shipments/${id}`],
	['address', 'get', 'addressId', 'text', {}, (id) => `GET /v1/addresses/${id}`],
	[
		'address',
		'update',
		'addressId',
		'text',
		{ updateFields: { name: 'X' } },
		(id) => `/v1/addresses/${id}`,
	],
	['address', 'delete', 'addressId', 'text', {}, (id) => `DELETE /v1/addresses/${id}`],
	['address', 'setDefault', 'addressId', 'text', {}, (id) => `PATCH /v1/addresses/${id}/default`],
	['bankAccount', 'get', 'bankAccountId', 'text', {}, (id) => `GET /v1/bank-accounts/${id}`],
	[
		'bankAccount',
		'update',
		'bankAccountId',
		'text',
		{ updateFields: { bankName: 'X' } },
		(id) => `/v1/bank-accounts/${id}`,
	],
	['bankAccount', 'delete', 'bankAccountId', 'text', {}, (id) => `DELETE /v1/bank-accounts/${id}`],
];

const idFor = (kind) => (kind === 'numeric' ? '100500' : UUID);
const sent = (expected) => requests.some((r) => r.includes(expected));

describe('saved ID values run as before on every converted parameter', () => {
	for (const [resource, operation, param, kind, extra, request] of OPS) {
		const id = idFor(kind);
		const cases = [
			['a plain string', id, [{}]],
			['a plain string with spaces around it', `  ${id}  `, [{}]],
			[
				'a plain expression of $json.id',
				'={{ $json.id }}',
				[{ id: kind === 'numeric' ? 100500 : id }],
			],
			[
				'a By ID locator with spaces around it (trimmed before the change)',
				{ __rl: true, mode: 'id', value: ` ${id} ` },
				[{}],
			],
			['a plain number (hand-written JSON)', kind === 'numeric' ? 100500 : id, [{}]],
		];
		for (const [label, value, items] of cases) {
			test(`${resource} → ${operation}: ${param} as ${label}`, async () => {
				const { error } = await runNode({
					parameters: { resource, operation, [param]: value, ...extra },
					items,
				});
				expect(error?.message).toBeUndefined();
				expect(sent(request(id)), requests.join(', ')).toBe(true);
			});
		}
		for (const [bad, message] of [
			['..', /cannot be "\.\."|has issues/],
			['   ', /is empty|has issues/],
			['', /is empty|has issues/],
		]) {
			test(`${resource} → ${operation}: ${param} "${bad}" is refused before any request`, async () => {
				for (const value of [
					bad,
					{ __rl: true, mode: 'id', value: bad },
					`={{ ${JSON.stringify(bad)} }}`,
				]) {
					const { error } = await runNode({
						parameters: { resource, operation, [param]: value, ...extra },
					});
					expect(error?.message, JSON.stringify(value)).toMatch(message);
				}
				expect(requests).toEqual([]);
			});
		}
	}
});

describe('$fromAI ids', () => {
	for (const [resource, operation, param, id, path] of [
		['mail', 'get', 'mailId', '100500', 'GET /v1/mails/100500'],
		['scan', 'get', 'scanId', UUID, `GET /v1/scans/${UUID}`],
		['shipment', 'get', 'shipmentId', UUID, `GET /v1/shipments/${UUID}`],
		['address', 'get', 'addressId', UUID, `GET /v1/addresses/${UUID}`],
		['bankAccount', 'get', 'bankAccountId', UUID, `GET /v1/bank-accounts/${UUID}`],
	]) {
		const expression = `={{ $fromAI('${param}', 'the id', 'string') }}`;
		for (const value of [expression, { __rl: true, mode: 'id', value: expression }]) {
			test(`${resource} → ${operation}: ${typeof value === 'string' ? 'plain' : 'locator'} $fromAI`, async () => {
				const { error } = await runNode({
					parameters: { resource, operation, [param]: value },
					items: [{ [param]: id }],
				});
				expect(error?.message).toBeUndefined();
				expect(requests).toEqual([path]);
			});
		}
	}
	test('the action node is still usable as a tool and its codex declares no AI subcategory', async () => {
		const { description } = (await loadPackage()).nodeTypes.virtualMailbox.type;
		expect(description.usableAsTool).toBe(true);
		const codex = JSON.parse(
			readFileSync(
				new URL('../../../nodes/VirtualMailbox/VirtualMailbox.node.json', import.meta.url),
				'utf8',
			),
		);
		expect(codex.subcategories?.AI).toBeUndefined();
		expect(description.properties.find((p) => p.name === 'resource')).toBeDefined();
	});
});

const METHODS = {
	searchMails: '/v1/mails',
	searchScans: '/v1/scans',
	searchShipments: '/v1/shipments',
	searchAddresses: '/v1/addresses',
	searchBankAccounts: '/v1/bank-accounts',
};

describe('list search errors', () => {
	beforeEach(() => resetNock());
	for (const [method, path] of Object.entries(METHODS)) {
		for (const [status, body] of [
			[401, { error: { code: 'unauthorized', message: `bad key ${DEFAULT_CREDENTIALS.apiKey}` } }],
			[422, { error: { code: 'validation_error', message: 'cursor rejected' } }],
		]) {
			test(`${method}: a ${status} fails with a message, never the API key`, async () => {
				nock(DEFAULT_CREDENTIALS.baseUrl).get(path).query(true).reply(status, body);
				const error = await runListSearch({
					method,
					filter: 'x',
					paginationToken: status === 422 ? 'tok' : undefined,
				}).then(
					() => undefined,
					(e) => e,
				);
				expect(error).toBeDefined();
				const text = JSON.stringify({
					message: error.message,
					description: error.description,
					cause: String(error.cause?.message ?? ''),
				});
				expect(text).not.toContain(DEFAULT_CREDENTIALS.apiKey);
				expect(error.message.length).toBeGreaterThan(0);
			});
		}
	}
});

describe('a filtered page that matches nothing on this page but more pages exist', () => {
	beforeEach(() => resetNock());
	test('searchShipments with a filter: an empty page of results with a next token leaves the picker empty', async () => {
		// 50 shipments that do not match, then one that does on the next page.
		const page1 = {
			data: Array.from({ length: 50 }, (_, i) => ({
				id: `s${i}`,
				type: 'shipment',
				status: 'in_progress',
				destination: { name: 'Alice' },
			})),
			next_cursor: 'c2',
		};
		const page2 = {
			data: [
				{
					id: 'hit',
					type: 'shipment',
					status: 'in_progress',
					destination: { name: 'Bob Builder' },
				},
			],
			next_cursor: null,
		};
		nock(DEFAULT_CREDENTIALS.baseUrl)
			.get('/v1/shipments')
			.query((q) => !q.cursor)
			.reply(200, page1);
		nock(DEFAULT_CREDENTIALS.baseUrl)
			.get('/v1/shipments')
			.query((q) => q.cursor === 'c2')
			.reply(200, page2);
		const first = await runListSearch({ method: 'searchShipments', filter: 'Bob' });
		// The editor asks for the next page only when the user scrolls a list: an empty first answer shows "No results".
		expect(first.results.map((r) => r.value)).toContain('hit');
	});
	test('a filter that matches nothing reads at most 10 pages, then hands the editor the next token', async () => {
		const asked = [];
		nock(DEFAULT_CREDENTIALS.baseUrl)
			.persist()
			.get('/v1/addresses')
			.query(true)
			.reply(200, (uri) => {
				const n = Number(new URL(uri, 'http://x').searchParams.get('cursor') ?? 0);
				asked.push(n);
				return {
					data: [
						{ id: `a${n}`, type: 'shipping', name: 'Alice', line1: 'Main St', city: 'Springfield' },
					],
					next_cursor: String(n + 1),
				};
			});
		const result = await runListSearch({ method: 'searchAddresses', filter: 'Zed' });
		expect(result.results).toEqual([]);
		expect(asked).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
		expect(result.paginationToken).toBe('10');
	});
	test('without a filter one page is read; bank accounts are read 100 a page', async () => {
		const limits = [];
		for (const path of ['/v1/addresses', '/v1/bank-accounts']) {
			nock(DEFAULT_CREDENTIALS.baseUrl)
				.get(path)
				.query((q) => (limits.push(`${path} ${q.limit}`), true))
				.reply(200, { data: [{ id: 'x', name: 'N', bank_name: 'B' }], next_cursor: 'more' });
		}
		expect((await runListSearch({ method: 'searchAddresses' })).paginationToken).toBe('more');
		await runListSearch({ method: 'searchBankAccounts', filter: 'B' });
		expect(limits).toEqual(['/v1/addresses 50', '/v1/bank-accounts 100']);
	});
});
