// Folders given by name, against the simulator: each node execution reads the folder list once and
// shares it between its items; nothing is reused by the next execution, so a folder deleted or
// renamed between executions is seen at once; a missing folder is created when filing unless
// Create Folder If Missing is turned off; a missing name's error fits the operation.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { ROOT_DIR } from '../../setup/paths.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim, credentials } = await simulatorForFile({ count: 60, seed: 11 });

const byName = (value) => ({ __rl: true, mode: 'name', value });
const run = (parameters, items) => runNode({ parameters, items, credentials });
const file = (mailId, name, options = {}) =>
	run({
		resource: 'mail',
		operation: 'update',
		mailId,
		updateFields: { folderId: byName(name) },
		options,
	});
const fileEach = (name, ids, options = {}) =>
	run(
		{
			resource: 'mail',
			operation: 'update',
			mailId: '={{ $json.id }}',
			updateFields: { folderId: byName(name) },
			options,
		},
		ids.map((id) => ({ id })),
	);
const api = async (method, url, body) => {
	const response = await fetch(`${sim.url}${url}`, {
		method,
		headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json' },
		body: body ? JSON.stringify(body) : undefined,
	});
	const text = await response.text();
	return text ? JSON.parse(text) : undefined;
};
const requestsOf = (method, url) =>
	sim.requests.filter((r) => r.method === method && r.path === url);
const mailIds = (n) => sim.db.mails.slice(0, n).map((m) => m.id);
const mail = (id) => sim.db.mails.find((m) => m.id === id);

describe('a folder given by name is looked up again by every execution', () => {
	test('a folder the node created and someone deleted since is created again by the next filing', async () => {
		const [first, second] = mailIds(2);
		const on = { createFolderIfMissing: true };
		expect((await file(first, 'Utilities', on)).error).toBeUndefined();
		const created = sim.db.folders.find((f) => f.name === 'Utilities');
		expect(mail(first).folder_id).toBe(created.id);
		expect(
			(await run({ resource: 'folder', operation: 'delete', folderId: byName('Utilities') })).error,
		).toBeUndefined();
		expect(sim.db.folders.some((f) => f.name === 'Utilities')).toBe(false);

		const { error } = await file(second, 'Utilities', on);
		expect(error).toBeUndefined();
		const again = sim.db.folders.filter((f) => f.name === 'Utilities');
		expect(again).toHaveLength(1);
		expect(mail(second).folder_id).toBe(again[0].id);
	});

	test('a folder the node created and someone renamed since does not receive mail filed by the old name', async () => {
		const [first, second] = mailIds(2);
		const on = { createFolderIfMissing: true };
		await file(first, 'Utilities', on);
		const created = sim.db.folders.find((f) => f.name === 'Utilities');
		await api('PATCH', `/v1/folders/${created.id}`, { name: 'Utilities 2025' });

		expect((await file(second, 'Utilities', on)).error).toBeUndefined();
		const utilities = sim.db.folders.filter((f) => f.name === 'Utilities');
		expect(utilities).toHaveLength(1);
		expect(utilities[0].id).not.toBe(created.id);
		expect(mail(second).folder_id).toBe(utilities[0].id);
		expect(mail(first).folder_id).toBe(created.id);
	});
});

describe('one execution reads the folder list once for all its items', () => {
	test('40 items filed into one existing folder by name: 1 folder list and 40 moves', async () => {
		const ids = mailIds(40);
		const taxes = sim.db.folders.find((f) => f.name === 'Taxes');
		sim.requests.length = 0;
		const { error, items } = await fileEach('Taxes', ids);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(40);
		expect(requestsOf('GET', '/v1/folders')).toHaveLength(1);
		expect(sim.requests.filter((r) => r.method === 'PATCH')).toHaveLength(40);
		expect(sim.requests).toHaveLength(41);
		for (const id of ids) expect(mail(id).folder_id).toBe(taxes.id);
	});

	test('40 items filed into a new folder by name: 1 list, 1 creation, 1 look for a twin, 40 moves', async () => {
		const ids = mailIds(40);
		sim.requests.length = 0;
		const { error } = await fileEach('Magazines', ids);
		expect(error).toBeUndefined();
		const magazines = sim.db.folders.filter((f) => f.name === 'Magazines');
		expect(magazines).toHaveLength(1);
		expect(requestsOf('POST', '/v1/folders')).toHaveLength(1);
		expect(requestsOf('GET', '/v1/folders')).toHaveLength(2);
		expect(sim.requests).toHaveLength(43);
		for (const id of ids) expect(mail(id).folder_id).toBe(magazines[0].id);
	});

	test('executions filing into the same new name at the same moment settle on one folder', async () => {
		sim.settings.latencyMs = 20;
		const ids = mailIds(9);
		const runs = await Promise.all(
			[0, 1, 2].map((k) =>
				fileEach('Receipts 2026', ids.slice(k * 3, k * 3 + 3), { createFolderIfMissing: true }),
			),
		);
		expect(runs.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
		const folders = sim.db.folders.filter((f) => f.name === 'Receipts 2026');
		expect(folders).toHaveLength(1);
		for (const id of ids) expect(mail(id).folder_id).toBe(folders[0].id);
	});
});

describe('Create Folder If Missing', () => {
	test('filing into a missing folder by name creates it without the option being added', async () => {
		const [id] = mailIds(1);
		const { error } = await file(id, 'Magazines');
		expect(error).toBeUndefined();
		const created = sim.db.folders.find((f) => f.name === 'Magazines');
		expect(mail(id).folder_id).toBe(created.id);
	});

	test('turned off, a missing folder fails before any write, listing the folders there are', async () => {
		const [id] = mailIds(1);
		const { error } = await file(id, 'Magazines', { createFolderIfMissing: false });
		expect(error.message).toBe('No folder is named "Magazines"');
		expect(error.description).toMatch(
			/^Existing folders: Bills, Taxes, .*Turn on "Create Folder If Missing" to create it\.$/,
		);
		expect(sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
	});
});

describe('a missing name fails with a message that fits the operation', () => {
	const withoutCreateHint = (error) => {
		expect(error.message).toBe('No folder is named "Nowhere"');
		expect(error.description).toMatch(/^Existing folders: Bills, /);
		expect(error.description).not.toMatch(/Create Folder If Missing/);
		expect(error.description).toMatch(/Check the name, or pick the folder from the list\.$/);
	};
	test('Folder → Get', async () =>
		withoutCreateHint(
			(await run({ resource: 'folder', operation: 'get', folderId: byName('Nowhere') })).error,
		));
	test('Folder → Update', async () =>
		withoutCreateHint(
			(
				await run({
					resource: 'folder',
					operation: 'update',
					folderId: byName('Nowhere'),
					updateFields: { name: 'Somewhere' },
				})
			).error,
		));
	test("Mail → Get Many's folder filter", async () =>
		withoutCreateHint(
			(
				await run({
					resource: 'mail',
					operation: 'getAll',
					returnAll: false,
					limit: 5,
					filters: { folderId: byName('Nowhere') },
				})
			).error,
		));
	test('Folder → Delete asks for the exact name', async () => {
		const { error } = await run({
			resource: 'folder',
			operation: 'delete',
			folderId: byName('Nowhere'),
		});
		expect(error.description).toMatch(/Deleting by name needs the exact name\.$/);
	});
});

describe('the "file new mail by sender" example', () => {
	const example = JSON.parse(
		fs.readFileSync(path.join(ROOT_DIR, 'examples', 'file-new-mail-by-sender.json'), 'utf8'),
	);
	const node = example.nodes.find((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailbox');
	test('a delivery whose sender is empty is filed into "Unknown sender"', async () => {
		const [id, other] = mailIds(2);
		const { error } = await run(node.parameters, [
			{ id, sender_name: null, mail_type: 'letter' },
			{ id: other, sender_name: 'Wells Fargo', mail_type: 'letter' },
		]);
		expect(error).toBeUndefined();
		expect(mail(id).folder_id).toBe(sim.db.folders.find((f) => f.name === 'Unknown sender').id);
		expect(mail(other).folder_id).toBe(sim.db.folders.find((f) => f.name === 'Wells Fargo').id);
	});
	test('a delivery whose sender is only spaces is filed into "Unknown sender"', async () => {
		const [id] = mailIds(1);
		const { error } = await run(node.parameters, [{ id, sender_name: '   ', mail_type: 'letter' }]);
		expect(error).toBeUndefined();
		expect(mail(id).folder_id).toBe(sim.db.folders.find((f) => f.name === 'Unknown sender').id);
	});
});
