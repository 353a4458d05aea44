// Operations beyond the published spec (marked "provider" in docs/api.md).
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import * as F from '../support/fixtures.mjs';
import { mockApi, resetNock } from '../support/api.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../harness/n8n-core-harness.mjs';

let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});
afterEach(() => expect(api.done()).toBe(true));

const scanId = F.scan(1).id;
const addressId = F.address(1).id;
const bankId = F.bankAccount(1).id;
const cases = [
	['mail update: file into a folder by ID and mark read', { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: { __rl: true, mode: 'id', value: '4' }, isRead: true } }, ['PATCH', '/v1/mails/1001', { folder_id: '4', is_read: true }], F.mailDetail(1)],
	['mail update: take out of folder, mark unread', { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { removeFromFolder: true, isRead: false } }, ['PATCH', '/v1/mails/1001', { folder_id: null, is_read: false }], F.mailDetail(1)],
	['mail archive', { resource: 'mail', operation: 'archive', mailId: '1001' }, ['POST', '/v1/mails/1001/archive'], F.mailDetail(1, { mail_status: 'archived' })],
	['mail unarchive', { resource: 'mail', operation: 'unarchive', mailId: '1001' }, ['POST', '/v1/mails/1001/unarchive'], F.mailDetail(1)],
	['mail discard', { resource: 'mail', operation: 'discard', mailId: '1001' }, ['POST', '/v1/mails/1001/discard'], F.mailDetail(1, { mail_status: 'discard_request' })],
	['scan create', { resource: 'scan', operation: 'create', mailId: '1001', type: 'open', additionalFields: { instruction: 'Only page 1', isExpedited: true } }, ['POST', '/v1/scans', { mail_id: '1001', type: 'open', instruction: 'Only page 1', is_expedited: true }], F.scan(1, { type: 'UNBOXING_REQUEST', is_expedited: true })],
	['scan delete (empty 204)', { resource: 'scan', operation: 'delete', scanId }, ['DELETE', `/v1/scans/${scanId}`], '', [{ id: scanId, deleted: true }], 204],
	['folder get by ID', { resource: 'folder', operation: 'get', folderId: { __rl: true, mode: 'id', value: '3' } }, ['GET', '/v1/folders/3'], F.folder(3)],
	['address get', { resource: 'address', operation: 'get', addressId }, ['GET', `/v1/addresses/${addressId}`], F.address(1)],
	['address update', { resource: 'address', operation: 'update', addressId, updateFields: { line2: 'Suite 9', phoneNumber: '+1555' } }, ['PATCH', `/v1/addresses/${addressId}`, { line2: 'Suite 9', phone_number: '+1555' }], F.address(1, { line2: 'Suite 9' })],
	['address delete', { resource: 'address', operation: 'delete', addressId }, ['DELETE', `/v1/addresses/${addressId}`], '', [{ id: addressId, deleted: true }], 204],
	['bank account get', { resource: 'bankAccount', operation: 'get', bankAccountId: { __rl: true, mode: 'list', value: bankId } }, ['GET', `/v1/bank-accounts/${bankId}`], F.bankAccount(1)],
	['bank account delete', { resource: 'bankAccount', operation: 'delete', bankAccountId: bankId }, ['DELETE', `/v1/bank-accounts/${bankId}`], '', [{ id: bankId, deleted: true }], 204],
];

describe('beyond-spec operations send the provider\'s request and output its answer', () => {
	for (const [name, parameters, [method, path, body], reply, output, status = 200] of cases) {
		test(name, async () => {
			api.on(method, path, { status, body: reply });
			const { items, error } = await runNode({ parameters });
			expect(error).toBeUndefined();
			expect(api.requests.map((r) => [r.method, r.path, r.body])).toEqual([[method, path, body]]);
			expect(items.map((i) => i.json)).toEqual(output ?? [reply]);
		});
	}

	test('unknown response fields pass through unchanged', async () => {
		api.on('GET', `/v1/addresses/${addressId}`, { body: { ...F.address(1), brand_new_field: { nested: true } } });
		const { items } = await runNode({ parameters: { resource: 'address', operation: 'get', addressId } });
		expect(items[0].json.brand_new_field).toEqual({ nested: true });
	});
});

describe('lists beyond the spec', () => {
	test('scan getAll pages through GET /v1/scans', async () => {
		const scans = Array.from({ length: 120 }, (_, n) => F.scan(n + 1));
		api.serveList('/v1/scans', () => scans);
		const { items } = await runNode({ parameters: { resource: 'scan', operation: 'getAll', returnAll: true } });
		expect(items).toHaveLength(120);
		expect(api.requests).toHaveLength(2);
	});
	test('shipment getAll sends type and status filters as repeated keys', async () => {
		api.serveList('/v1/shipments', () => [F.shipment(1), F.shipment(2)]);
		const { items } = await runNode({ parameters: { resource: 'shipment', operation: 'getAll', returnAll: false, limit: 10, filters: { type: ['shipment', 'pickup'], status: ['shipped'] } } });
		expect(items).toHaveLength(2);
		expect(api.requests[0].search).toBe('?type=shipment&type=pickup&status=shipped&limit=10');
	});
	test('address getAll accepts a page envelope or a bare array', async () => {
		api.on('GET', '/v1/addresses', { body: [F.address(1), F.address(2)] });
		const { items, error } = await runNode({ parameters: { resource: 'address', operation: 'getAll', returnAll: true } });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
	});
});

describe('scan download', () => {
	test('fetches the signed link at once and outputs the file as binary, never the link', async () => {
		const link = 'https://files.vmb.test/scans/abc.pdf?X-Signature=secret-sig';
		api.on('GET', `/v1/scans/${scanId}/file`, { body: { url: link, expires_at: '2026-11-22T00:15:00Z' } });
		let authorization = 'not called';
		nock('https://files.vmb.test').get('/scans/abc.pdf').query(true).reply(function () {
			authorization = this.req.headers.authorization;
			return [200, Buffer.from('%PDF-1.4 bytes'), { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="2026-11 electric bill.pdf"' }];
		});
		const { items, error } = await runNode({ parameters: { resource: 'scan', operation: 'download', scanId, binaryPropertyName: 'scan' } });
		expect(error).toBeUndefined();
		expect(authorization).toBeUndefined();
		expect(items[0].json).toEqual({ scan_id: scanId, file_name: '2026-11 electric bill.pdf', mime_type: 'application/pdf', size: 14 });
		expect(items[0].binary.scan).toMatchObject({ mimeType: 'application/pdf', fileName: '2026-11 electric bill.pdf' });
		expect(JSON.stringify(items)).not.toContain('secret-sig');
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});
	test('a scan that is not completed gives the API\'s 409', async () => {
		api.on('GET', `/v1/scans/${scanId}/file`, { status: 409, body: F.problem(409, { detail: 'Scan is IN_PROCESS' }) });
		const { error } = await runNode({ parameters: { resource: 'scan', operation: 'download', scanId, binaryPropertyName: 'data' } });
		expect(error.message).toBe('Conflict: Scan is IN_PROCESS');
	});
});

describe('folder by name', () => {
	const byName = (value) => ({ __rl: true, mode: 'name', value });
	test('a name is looked up case-insensitively', async () => {
		api.on('GET', '/v1/folders', { body: [F.folder(1, { name: 'Bills' }), F.folder(2, { name: 'Chase Bank' })] });
		api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({ parameters: { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: byName('chase bank') } } });
		expect(error).toBeUndefined();
		expect(api.requests[1].body).toEqual({ folder_id: '2' });
	});
	test('a missing name fails, listing the folders there are, unless Create If Missing', async () => {
		api.on('GET', '/v1/folders', { body: [F.folder(1, { name: 'Bills' })] });
		const { error } = await runNode({ parameters: { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: byName('Taxes 2026') } } });
		expect(error.message).toBe('No folder is named "Taxes 2026"');
		expect(error.description).toMatch(/Existing folders: Bills/);
	});
	test('many items filing into a new folder create it once, even across concurrent executions', async () => {
		const name = `Sender ${Date.now()}`;
		api.on('GET', '/v1/folders', { body: [F.folder(1, { name: 'Bills' })] }, { times: 3 });
		api.on('POST', '/v1/folders', { status: 201, body: F.folder(77, { name }) });
		api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) }, { times: 9 });
		const parameters = { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: byName(name) }, options: { createFolderIfMissing: true } };
		const runs = await Promise.all([1, 2, 3].map(() => runNode({ parameters, items: [{}, {}, {}] })));
		expect(runs.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
		expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.body.folder_id)).toEqual(Array(9).fill('77'));
		// leave the unused GETs for other runs
		nock.cleanAll();
		api.requests.length = 0;
		api.done = () => true;
	});
	test('mail getAll accepts the folder filter by name', async () => {
		api.on('GET', '/v1/folders', { body: { data: [F.folder(5, { name: 'Taxes' })] } });
		api.on('GET', '/v1/mails', { body: { data: [], next_cursor: null, total_count: 0 } });
		await runNode({ parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: { folderId: byName('Taxes') } } });
		expect(api.requests[1].query.folder_id).toEqual(['5']);
	});
	test('choosing a folder and taking the item out of its folder at once is refused before any request', async () => {
		const { error } = await runNode({
			parameters: { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: { __rl: true, mode: 'id', value: '2' }, removeFromFolder: true } },
		});
		expect(error.message).toMatch(/either Folder or Take Out of Folder/);
		expect(api.requests).toHaveLength(0);
	});
});

test('credentials of the default harness point at the mock', () => expect(DEFAULT_CREDENTIALS.environment).toBe('custom'));
