// Operations of the mail resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import * as F from '../../support/fixtures.mjs';
import { MailItem } from '../../support/schemas.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();

operationCases('mail operations send the exact request and output the API object', mock, [
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
		parameters: { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { folderId: { __rl: true, mode: 'id', value: '4' }, isRead: true } },
		request: ['PATCH', '/v1/mails/1001', { folder_id: '4', is_read: true }],
		reply: F.mailDetail(1),
	},
	{
		name: 'mail update: take out of folder, mark unread',
		parameters: { resource: 'mail', operation: 'update', mailId: '1001', updateFields: { removeFromFolder: true, isRead: false } },
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
			parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: { folderId: { __rl: true, mode: 'id', value: 'bills' } } },
		});
		expect(error.message).toMatch(/Folder must be a numeric string/);
		expect(mock.api.requests).toHaveLength(0);
	});
});
