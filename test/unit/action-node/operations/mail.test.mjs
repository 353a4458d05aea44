// Operations of the mail resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { MailItem } from '../../../support/schemas.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();

operationCases('mail operations send the exact request and output the API object', mock, [
	{
		name: 'mail seedMailbox (sandbox): one item per seeded mail item',
		parameters: { resource: 'mail', operation: 'seedMailbox' },
		request: ['POST', '/v1/sandbox/seed'],
		status: 201,
		reply: { mail_ids: ['2001', '2002', '2003'] },
		output: [{ mail_id: '2001' }, { mail_id: '2002' }, { mail_id: '2003' }],
	},
	{
		name: "mail seedMailItem (sandbox) with the SDK's mail type, sender, weight and measurement",
		parameters: {
			resource: 'mail',
			operation: 'seedMailItem',
			seedMailType: 'LARGELETTER',
			additionalFields: {
				senderName: 'Big Envelope Co',
				weight: 0.4,
				width: 12,
				height: 15,
				length: 0.5,
			},
		},
		request: [
			'POST',
			'/v1/sandbox/seed/mail',
			{
				mail_type: 'LARGELETTER',
				sender_name: 'Big Envelope Co',
				weight: 0.4,
				measurement: { width: 12, height: 15, length: 0.5 },
			},
		],
		status: 201,
		reply: { mail_id: '2004' },
	},
	{
		name: 'mail seedMailItem (sandbox) with the type alone',
		parameters: { resource: 'mail', operation: 'seedMailItem', seedMailType: 'PACKAGE' },
		request: ['POST', '/v1/sandbox/seed/mail', { mail_type: 'PACKAGE' }],
		status: 201,
		reply: { mail_id: '2005' },
	},
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
		name: 'mail update: file into a folder by ID and mark read',
		parameters: {
			resource: 'mail',
			operation: 'update',
			mailId: '1001',
			updateFields: { folderId: { __rl: true, mode: 'id', value: '4' }, isRead: true },
		},
		request: ['PATCH', '/v1/mails/1001', { folder_id: '4', is_read: true }],
		reply: F.mailDetail(1),
	},
	{
		name: 'mail update: take out of folder, mark unread',
		parameters: {
			resource: 'mail',
			operation: 'update',
			mailId: '1001',
			updateFields: { removeFromFolder: true, isRead: false },
		},
		request: ['PATCH', '/v1/mails/1001', { folder_id: null, is_read: false }],
		reply: F.mailDetail(1),
	},
	{
		name: 'mail archive',
		parameters: { resource: 'mail', operation: 'archive', mailId: '1001' },
		request: ['POST', '/v1/mails/1001/archive'],
		reply: F.mailDetail(1, { mail_status: 'archived' }),
	},
	{
		name: 'mail unarchive',
		parameters: { resource: 'mail', operation: 'unarchive', mailId: '1001' },
		request: ['POST', '/v1/mails/1001/unarchive'],
		reply: F.mailDetail(1),
	},
	{
		name: 'mail discard',
		parameters: { resource: 'mail', operation: 'discard', mailId: '1001' },
		request: ['POST', '/v1/mails/1001/discard'],
		reply: F.mailDetail(1, { mail_status: 'discard_request' }),
	},
]);

describe('mail getAll', () => {
	test('sends every filter; list filters as repeated keys; one item per mail', async () => {
		const data = [F.mail(1), F.mail(2)];
		mock.api.on('GET', '/v1/mails', { body: F.pageOf(MailItem, data, null, 2) });
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
		expect(mock.api.requests[0].search).toBe(
			'?status=inbox&status=archived&mail_type=letter&mail_type=large_letter&scan_status=completed&scan_status=none&folder_id=12&search=IRS&sort=oldest&arrived=half_year&is_read=false&limit=100',
		);
		expect(items.map((i) => i.json)).toEqual(data);
	});

	test('a folder filter that is not numeric fails before any request', async () => {
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				filters: { folderId: { __rl: true, mode: 'id', value: 'bills' } },
			},
		});
		expect(error.message).toMatch(/Folder must be a numeric string/);
		expect(mock.api.requests).toHaveLength(0);
	});
});

describe('mail seeding (sandbox)', () => {
	for (const [operation, label] of [
		['seedMailbox', 'Seed Mailbox (Sandbox)'],
		['seedMailItem', 'Seed Mail Item (Sandbox)'],
	]) {
		test(`${operation} refuses production credentials before any request`, async () => {
			const { error } = await runNode({
				parameters: { resource: 'mail', operation },
				credentials: { ...DEFAULT_CREDENTIALS, environment: 'production' },
			});
			expect(error.message).toBe(`${label} only works against the sandbox`);
			expect(error.description).toMatch(/Environment is Sandbox/);
			expect(mock.api.requests).toHaveLength(0);
		});
	}
	for (const [parameters, message] of [
		[
			{ seedMailType: 'large_letter' },
			/Mail Type must be one of LETTER, LARGELETTER, MAGAZINE, CATALOG, SOFTPAK, PACKAGE; got "large_letter"/,
		],
		[{ additionalFields: { width: 3, height: 4 } }, /Width, Height and Length go together/],
		[{ additionalFields: { weight: -1 } }, /Weight must be a number above 0/],
	]) {
		test(`seedMailItem refuses ${JSON.stringify(parameters)} before any request`, async () => {
			const { error } = await runNode({
				parameters: {
					resource: 'mail',
					operation: 'seedMailItem',
					seedMailType: 'LETTER',
					...parameters,
				},
			});
			expect(error?.message).toMatch(message);
			expect(mock.api.requests).toHaveLength(0);
		});
	}
});
