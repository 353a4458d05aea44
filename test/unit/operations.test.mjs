import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import * as F from '../support/fixtures.mjs';
import { MailItem } from '../support/schemas.mjs';
import { mockApi, resetNock } from '../support/api.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../harness/n8n-core-harness.mjs';

const AUTH = `Bearer ${DEFAULT_CREDENTIALS.apiKey}`;
let api;
beforeEach(() => {
	resetNock();
	api = mockApi();
});
afterEach(() => expect(api.done()).toBe(true));

/** Each spec endpoint: node parameters → the one request it must send → the output items. */
const cases = [
	{
		name: 'mail get',
		parameters: { resource: 'mail', operation: 'get', mailId: '1001' },
		request: ['GET', '/v1/mails/1001'],
		reply: F.mailDetail(1),
	},
	{
		name: 'mail undiscard',
		parameters: { resource: 'mail', operation: 'undiscard', mailId: '1002' },
		request: ['POST', '/v1/mails/1002/undiscard'],
		reply: F.mailDetail(2, { mail_status: 'inbox' }),
	},
	{
		name: 'scan get',
		parameters: { resource: 'scan', operation: 'get', scanId: F.scan(1).id },
		request: ['GET', `/v1/scans/${F.scan(1).id}`],
		reply: F.scan(1),
	},
	{
		name: 'scan cancel',
		parameters: { resource: 'scan', operation: 'cancel', scanId: F.scan(2).id },
		request: ['POST', `/v1/scans/${F.scan(2).id}/cancel`],
		reply: F.scan(2, { status: 'CANCELLED' }),
	},
	{
		name: 'scan getSummary',
		parameters: { resource: 'scan', operation: 'getSummary', scanId: F.scan(3).id },
		request: ['GET', `/v1/scans/${F.scan(3).id}/summary`],
		reply: { label: 'Electric bill', summary: ['Due 12 Dec', 'Amount $84.20'] },
	},
	{
		name: 'scan complete (sandbox) with label and summary',
		parameters: {
			resource: 'scan',
			operation: 'complete',
			scanId: F.scan(4).id,
			additionalFields: { label: 'Tax form', summary: ['Form 1099', 'Year 2026'] },
		},
		request: ['POST', `/v1/sandbox/scans/${F.scan(4).id}/complete`, { label: 'Tax form', summary: ['Form 1099', 'Year 2026'] }],
		reply: F.scan(4, { status: 'COMPLETED', label: 'Tax form' }),
	},
	{
		// Nothing to send: n8n's HTTP helper omits an empty JSON body; the spec makes every field optional.
		name: 'scan complete (sandbox) with no fields',
		parameters: { resource: 'scan', operation: 'complete', scanId: F.scan(5).id },
		request: ['POST', `/v1/sandbox/scans/${F.scan(5).id}/complete`],
		reply: F.scan(5, { status: 'COMPLETED' }),
	},
	{
		name: 'shipment get',
		parameters: { resource: 'shipment', operation: 'get', shipmentId: F.shipment(1).id },
		request: ['GET', `/v1/shipments/${F.shipment(1).id}`],
		reply: F.shipment(1),
	},
	{
		name: 'folder create',
		parameters: { resource: 'folder', operation: 'create', name: 'Bills', additionalFields: { color: '#FF0000' } },
		request: ['POST', '/v1/folders', { name: 'Bills', color: '#FF0000' }],
		status: 201,
		reply: F.folder(7, { name: 'Bills', color: '#FF0000' }),
	},
	{
		name: 'folder update (resource locator)',
		parameters: { resource: 'folder', operation: 'update', folderId: { __rl: true, mode: 'list', value: '7' }, updateFields: { name: 'Paid bills' } },
		request: ['PATCH', '/v1/folders/7', { name: 'Paid bills' }],
		reply: F.folder(7, { name: 'Paid bills' }),
	},
	{
		name: 'folder update (plain string id of an older workflow)',
		parameters: { resource: 'folder', operation: 'update', folderId: '8', updateFields: { color: '#00ff00' } },
		request: ['PATCH', '/v1/folders/8', { color: '#00ff00' }],
		reply: F.folder(8, { color: '#00ff00' }),
	},
	{
		name: 'folder delete with an empty 204',
		parameters: { resource: 'folder', operation: 'delete', folderId: { __rl: true, mode: 'id', value: '9' } },
		request: ['DELETE', '/v1/folders/9'],
		status: 204,
		reply: '',
		output: [{ id: '9', deleted: true }],
	},
	{
		name: 'folder getAll (bare array)',
		parameters: { resource: 'folder', operation: 'getAll', returnAll: true },
		request: ['GET', '/v1/folders'],
		reply: [F.folder(1), F.folder(2)],
		output: [F.folder(1), F.folder(2)],
	},
	{
		name: 'folder getAll (object holding the array), Limit 1',
		parameters: { resource: 'folder', operation: 'getAll', returnAll: false, limit: 1 },
		request: ['GET', '/v1/folders'],
		reply: { folders: [F.folder(1), F.folder(2)] },
		output: [F.folder(1)],
	},
	{
		name: 'address create',
		parameters: {
			resource: 'address',
			operation: 'create',
			type: 'deposit',
			name: 'Ada Lovelace',
			line1: '1 Main St',
			city: 'Springfield',
			state: 'IL',
			postalCode: '62701',
			country: 'US',
			phoneNumber: '+15555550100',
			additionalFields: { line2: 'Suite 2', taxId: 'TX-1' },
		},
		request: [
			'POST',
			'/v1/addresses',
			{ type: 'deposit', name: 'Ada Lovelace', line1: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US', phone_number: '+15555550100', line2: 'Suite 2', tax_id: 'TX-1' },
		],
		status: 201,
		reply: F.address(1, { type: 'deposit' }),
	},
	{
		name: 'address getDefault',
		parameters: { resource: 'address', operation: 'getDefault', type: 'shipping' },
		request: ['GET', '/v1/addresses/default', undefined, { type: ['shipping'] }],
		reply: F.address(2),
	},
	{
		name: 'bank account create',
		parameters: { resource: 'bankAccount', operation: 'create', bankName: 'First Bank', bankState: 'NY', accountNumber: '000123456789' },
		request: ['POST', '/v1/bank-accounts', { bank_name: 'First Bank', bank_state: 'NY', account_number: '000123456789' }],
		status: 201,
		reply: F.bankAccount(1, { bank_name: 'First Bank' }),
	},
	{
		name: 'bank account update',
		parameters: { resource: 'bankAccount', operation: 'update', bankAccountId: { __rl: true, mode: 'id', value: F.bankAccount(2).id }, updateFields: { accountNumber: '999988887777' } },
		request: ['PATCH', `/v1/bank-accounts/${F.bankAccount(2).id}`, { account_number: '999988887777' }],
		reply: F.bankAccount(2, { account_number_last4: '7777' }),
	},
	{
		name: 'account get',
		parameters: { resource: 'account', operation: 'get' },
		request: ['GET', '/v1/account'],
		reply: F.account(),
	},
	{
		name: 'account getMailingAddress',
		parameters: { resource: 'account', operation: 'getMailingAddress' },
		request: ['GET', '/v1/account/mailing-address'],
		reply: F.mailingAddress(),
	},
];

describe('every spec endpoint sends the exact request and outputs the API object', () => {
	for (const c of cases) {
		test(c.name, async () => {
			const [method, path, body, query = {}] = c.request;
			api.on(method, path, { status: c.status ?? 200, body: c.reply });
			const { items, error } = await runNode({ parameters: c.parameters });
			expect(error).toBeUndefined();
			expect(api.requests).toHaveLength(1);
			const sent = api.requests[0];
			expect(sent.method).toBe(method);
			expect(sent.path).toBe(path);
			expect(sent.query).toEqual(query);
			expect(sent.headers.authorization).toBe(AUTH);
			if (body === undefined) expect(sent.body).toBeUndefined();
			else expect(sent.body).toEqual(body);
			expect(items.map((item) => item.json)).toEqual(c.output ?? [c.reply]);
			expect(items.every((item) => item.pairedItem?.item === 0)).toBe(true);
		});
	}
});

describe('mail getAll', () => {
	test('sends every filter; list filters as repeated keys; one item per mail', async () => {
		const data = [F.mail(1), F.mail(2)];
		api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, data, null, 2) });
		const { items, error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				filters: {
					status: ['inbox', 'archived'],
					mailType: ['letter', 'large_letter'],
					scanStatus: ['completed', 'none'],
					folderId: { __rl: true, mode: 'list', value: '12' },
					search: 'IRS',
					sort: 'oldest',
					arrived: 'half_year',
					isRead: 'false',
				},
			},
		});
		expect(error).toBeUndefined();
		expect(api.requests[0].search).toBe(
			'?status=inbox&status=archived&mail_type=letter&mail_type=large_letter&scan_status=completed&scan_status=none&folder_id=12&search=IRS&sort=oldest&arrived=half_year&is_read=false&limit=100',
		);
		expect(items.map((i) => i.json)).toEqual(data);
	});

	test('a folder filter that is not numeric fails before any request', async () => {
		const { error } = await runNode({
			parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: { folderId: { __rl: true, mode: 'id', value: 'bills' } } },
		});
		expect(error.message).toMatch(/Folder must be a numeric string/);
		expect(api.requests).toHaveLength(0);
	});
});

describe('items', () => {
	test('each input item runs once and outputs are paired to it', async () => {
		api.on('GET', '/v1/mails/1001', { body: F.mailDetail(1) });
		api.on('GET', '/v1/mails/1002', { body: F.mailDetail(2) });
		const { items } = await runNode({
			parameters: { resource: 'mail', operation: 'get', mailId: '={{ $json.id }}' },
			items: [{ id: '1001' }, { id: '1002' }],
		});
		expect(items.map((i) => [i.json.id, i.pairedItem.item])).toEqual([
			['1001', 0],
			['1002', 1],
		]);
	});

	test('Continue On Fail: a failing item yields an error item and the others still run', async () => {
		api.on('GET', '/v1/mails/1001', { status: 404, body: F.problem(404, { detail: 'No mail item 1001' }) });
		api.on('GET', '/v1/mails/1002', { body: F.mailDetail(2) });
		const { items, error } = await runNode({
			parameters: { resource: 'mail', operation: 'get', mailId: '={{ $json.id }}' },
			items: [{ id: '1001' }, { id: 'abc' }, { id: '1002' }],
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json).toMatchObject({ error: 'Not found: No mail item 1001', status: 404, code: 'not_found', requestId: 'req_404_abc' });
		expect(items[0].pairedItem.item).toBe(0);
		expect(items[1].json.error).toMatch(/Mail ID must be a numeric string/);
		expect(items[1].pairedItem.item).toBe(1);
		expect(items[2].json.id).toBe('1002');
		expect(items[2].pairedItem.item).toBe(2);
	});
});
