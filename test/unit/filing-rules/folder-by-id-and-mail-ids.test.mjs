// File by Rules with a folder given by ID, and the Mail IDs of all items: a folder deleted since the
// input item was read is never reported as "already" holding the mail, the preview and the real run
// name the folder alike, and a Mail ID that is not one fails before any item's request.
import { describe, expect, test } from 'vitest';
import { byName, filingRulesSimulator } from './simulator.mjs';

const env = await filingRulesSimulator();
const { add, mail, writes, fileByRules, getMany } = env;
const api = async (method, path, body) =>
	await fetch(`${env.sim.url}${path}`, {
		method,
		headers: { authorization: `Bearer ${env.sim.apiKey}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
const byId = (value) => ({ __rl: true, mode: 'id', value });
const asReal = (decision) =>
	decision
		.replace(/^Would file/, 'Filed')
		.replace('(folder would be created)', '(folder created)')
		.replace(/would be /g, '');

describe('a folder given by ID', () => {
	test('deleted since the input item was read: the real run does not say the mail is already in it, and fails as the preview says it would', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		const first = await fileByRules(await getMany([id]), {
			rules: { rule: [{ field: 'sender', value: 'IRS', folder: byName('Taxes') }] },
		});
		expect(first.error).toBeUndefined();
		const taxes = mail(id).folder_id;
		// Read after the filing: the item says it is in Taxes. Then the folder is deleted.
		const items = await getMany([id]);
		expect((await api('DELETE', `/v1/folders/${taxes}`)).status).toBe(204);
		expect(mail(id).folder_id).toBeNull();
		const rules = { rules: { rule: [{ field: 'sender', value: 'IRS', folder: byId(taxes) }] } };

		const preview = await fileByRules(items, { ...rules, previewOnly: true });
		expect(preview.items[0].json.decision).toBe(
			`Would fail: Rule 1's folder ID ${taxes} does not exist`,
		);
		env.sim.requests.length = 0;
		const real = await fileByRules(items, rules);
		expect(real.items?.[0]?.json.already_in_folder).not.toBe(true);
		expect(real.error?.message).toMatch(
			new RegExp(`^Rule 1 \\(folder ID ${taxes}\\): the folder does not exist`),
		);
		expect(writes()).toEqual([]);
	});

	test('the preview and the real run name the folder alike, whether the mail is filed or already there', async () => {
		const folder = await (await api('POST', '/v1/folders', { name: 'Taxes' })).json();
		const ids = [add({ sender_name: 'IRS Ogden' }).id, add({ sender_name: 'IRS Fresno' }).id];
		await api('PATCH', `/v1/mails/${ids[1]}`, { folder_id: folder.id });
		const items = await getMany(ids);
		const rules = { rules: { rule: [{ field: 'sender', value: 'IRS', folder: byId(folder.id) }] } };
		const preview = await fileByRules(items, { ...rules, previewOnly: true });
		expect(preview.error).toBeUndefined();
		const real = await fileByRules(items, rules);
		expect(real.error).toBeUndefined();
		expect(real.items.map((i) => [i.json.decision, i.json.folder_name])).toEqual(
			preview.items.map((i) => [asReal(i.json.decision), i.json.folder_name]),
		);
		expect(real.items.map((i) => i.json.decision)).toEqual([
			'Filed into "Taxes"',
			'Already in "Taxes"',
		]);
	});
});

describe('a folder given by ID, the mail item read', () => {
	test('a scan as input (the mail item is read): the real run names the folder it is already in as the preview does', async () => {
		const folder = await (await api('POST', '/v1/folders', { name: 'Taxes' })).json();
		const id = add({ sender_name: 'IRS Ogden' }).id;
		await api('PATCH', `/v1/mails/${id}`, { folder_id: folder.id });
		const scan = await env.control(`/mails/${id}/scan`, { type: 'scan' });
		const rules = { rules: { rule: [{ field: 'sender', value: 'IRS', folder: byId(folder.id) }] } };
		const items = [{ id: scan.id, mail_id: id, type: 'SCAN_REQUEST', status: 'IN_PROCESS' }];
		const preview = await fileByRules(items, { ...rules, previewOnly: true });
		const real = await fileByRules(items, rules);
		expect(real.error).toBeUndefined();
		expect([real.items[0].json.decision, real.items[0].json.folder_name]).toEqual([
			preview.items[0].json.decision,
			preview.items[0].json.folder_name,
		]);
		expect(real.items[0].json.decision).toBe('Already in "Taxes"');
	});
});

describe('Mail IDs of all items', () => {
	test('a later item whose Mail ID is not a number fails the run before any request, naming Mail ID', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		const items = [...(await getMany([id])), { id: 'not-a-mail' }];
		env.sim.requests.length = 0;
		const { error } = await fileByRules(items, {
			rules: { rule: [{ field: 'sender', value: 'IRS', folder: byName('Taxes') }] },
		});
		expect(error?.message).toMatch(/Mail ID/);
		expect(env.sim.requests).toEqual([]);
		expect(mail(id).folder_id).toBeNull();
	});
});
