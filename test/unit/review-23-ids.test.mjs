// Review #23: saved workflows whose ID parameters are plain strings, expressions or numbers run as
// before for every operation converted to a resource locator; By ID checks unchanged.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { DEFAULT_CREDENTIALS, runNode } from '../harness/n8n-core-harness.mjs';
import { resetNock } from '../support/api.mjs';

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
				return [200, { id: '100500', uuid: UUID, url: `${DEFAULT_CREDENTIALS.baseUrl}/file.pdf`, expires_at: '2030-01-01T00:00:00Z', data: [], next_cursor: null }];
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
	['mail', 'update', 'mailId', 'numeric', { updateFields: { isRead: true } }, (id) => `/v1/mails/${id}`],
	['scan', 'create', 'mailId', 'numeric', { type: 'scan' }, () => 'POST /v1/scans'],
	['scan', 'get', 'scanId', 'text', {}, (id) => `GET /v1/scans/${id}`],
	['scan', 'getSummary', 'scanId', 'text', {}, (id) => `GET /v1/scans/${id}/summary`],
	['scan', 'cancel', 'scanId', 'text', {}, (id) => `POST /v1/scans/${id}/cancel`],
	['scan', 'delete', 'scanId', 'text', {}, (id) => `DELETE /v1/scans/${id}`],
	['scan', 'download', 'scanId', 'text', { binaryPropertyName: 'data' }, (id) => `GET /v1/scans/${id}/file`],
	['shipment', 'get', 'shipmentId', 'text', {}, (id) => `GET /v1/shipments/${id}`],
	['address', 'get', 'addressId', 'text', {}, (id) => `GET /v1/addresses/${id}`],
	['address', 'update', 'addressId', 'text', { updateFields: { name: 'X' } }, (id) => `/v1/addresses/${id}`],
	['address', 'delete', 'addressId', 'text', {}, (id) => `DELETE /v1/addresses/${id}`],
	['address', 'setDefault', 'addressId', 'text', {}, (id) => `PATCH /v1/addresses/${id}/default`],
	['bankAccount', 'get', 'bankAccountId', 'text', {}, (id) => `GET /v1/bank-accounts/${id}`],
	['bankAccount', 'update', 'bankAccountId', 'text', { updateFields: { bankName: 'X' } }, (id) => `/v1/bank-accounts/${id}`],
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
			['a plain expression of $json.id', '={{ $json.id }}', [{ id: kind === 'numeric' ? 100500 : id }]],
			['a By ID locator with spaces around it (trimmed before the change)', { __rl: true, mode: 'id', value: ` ${id} ` }, [{}]],
			['a plain number (hand-written JSON)', kind === 'numeric' ? 100500 : id, [{}]],
		];
		for (const [label, value, items] of cases) {
			test(`${resource} → ${operation}: ${param} as ${label}`, async () => {
				const { error } = await runNode({ parameters: { resource, operation, [param]: value, ...extra }, items });
				expect(error?.message).toBeUndefined();
				expect(sent(request(id)), requests.join(', ')).toBe(true);
			});
		}
		for (const [bad, message] of [['..', /cannot be "\.\."|has issues/], ['   ', /is empty|has issues/], ['', /is empty|has issues/]]) {
			test(`${resource} → ${operation}: ${param} "${bad}" is refused before any request`, async () => {
				for (const value of [bad, { __rl: true, mode: 'id', value: bad }, `={{ ${JSON.stringify(bad)} }}`]) {
					const { error } = await runNode({ parameters: { resource, operation, [param]: value, ...extra } });
					expect(error?.message, JSON.stringify(value)).toMatch(message);
				}
				expect(requests).toEqual([]);
			});
		}
	}
});
