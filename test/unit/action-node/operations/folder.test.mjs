// Operations of the folder resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { runNode } from '../../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();

operationCases('folder operations send the exact request and output the API object', mock, [
	{
		name: 'folder create',
		parameters: {
			resource: 'folder',
			operation: 'create',
			name: 'Bills',
			additionalFields: { color: '#FF0000' },
		},
		request: ['POST', '/v1/folders', { name: 'Bills', color: '#FF0000' }],
		status: 201,
		reply: F.folder(7, { name: 'Bills', color: '#FF0000' }),
	},
	{
		name: 'folder update (resource locator)',
		parameters: {
			resource: 'folder',
			operation: 'update',
			folderId: { __rl: true, mode: 'list', value: '7' },
			updateFields: { name: 'Paid bills' },
		},
		request: ['PATCH', '/v1/folders/7', { name: 'Paid bills' }],
		reply: F.folder(7, { name: 'Paid bills' }),
	},
	{
		name: 'folder update (plain string id of an older workflow)',
		parameters: {
			resource: 'folder',
			operation: 'update',
			folderId: '8',
			updateFields: { color: '#00ff00' },
		},
		request: ['PATCH', '/v1/folders/8', { color: '#00ff00' }],
		reply: F.folder(8, { color: '#00ff00' }),
	},
	{
		name: 'folder delete with an empty 204',
		parameters: {
			resource: 'folder',
			operation: 'delete',
			folderId: { __rl: true, mode: 'id', value: '9' },
		},
		request: ['DELETE', '/v1/folders/9'],
		status: 204,
		reply: '',
		output: [{ id: '9', deleted: true }],
	},
	{
		name: "folder getAll: the SDK's { data } answer",
		parameters: { resource: 'folder', operation: 'getAll', returnAll: true },
		request: ['GET', '/v1/folders'],
		reply: { data: [F.folder(1), F.folder(2)] },
		output: [F.folder(1), F.folder(2)],
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
		name: 'folder get by ID',
		parameters: {
			resource: 'folder',
			operation: 'get',
			folderId: { __rl: true, mode: 'id', value: '3' },
		},
		request: ['GET', '/v1/folders/3'],
		reply: F.folder(3),
	},
]);

describe('folder by name', () => {
	const byName = (value) => ({ __rl: true, mode: 'name', value });
	test('a name is looked up case-insensitively', async () => {
		mock.api.on('GET', '/v1/folders', {
			body: [F.folder(1, { name: 'Bills' }), F.folder(2, { name: 'Chase Bank' })],
		});
		mock.api.on('PATCH', '/v1/mails/1001', { body: F.mailDetail(1) });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: byName('chase bank') },
			},
		});
		expect(error).toBeUndefined();
		expect(mock.api.requests[1].body).toEqual({ folder_id: '2' });
	});
	test('with Create Folder If Missing off, a missing name fails, listing the folders there are', async () => {
		mock.api.on('GET', '/v1/folders', { body: [F.folder(1, { name: 'Bills' })] });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: byName('Taxes 2026') },
				options: { createFolderIfMissing: false },
			},
		});
		expect(error.message).toBe('No folder is named "Taxes 2026"');
		expect(error.description).toMatch(/Existing folders: Bills/);
	});
	test('mail getAll accepts the folder filter by name', async () => {
		mock.api.on('GET', '/v1/folders', { body: { data: [F.folder(5, { name: 'Taxes' })] } });
		mock.api.on('GET', '/v1/mails', { body: { data: [], next_cursor: null, total_count: 0 } });
		await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				filters: { folderId: byName('Taxes') },
			},
		});
		expect(mock.api.requests[1].query.folder_id).toEqual(['5']);
	});
	test('choosing a folder and taking the item out of its folder at once is refused before any request', async () => {
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '1001',
				updateFields: { folderId: { __rl: true, mode: 'id', value: '2' }, removeFromFolder: true },
			},
		});
		expect(error.message).toMatch(/either Folder or Take Out of Folder/);
		expect(mock.api.requests).toHaveLength(0);
	});
});
