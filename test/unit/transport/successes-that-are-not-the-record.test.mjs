// A 2xx whose body is not the JSON record asked for (a captive portal's or login page, an empty
// body, a JSON string) is an error naming what came back, in every node; never an item. A read
// asks again as after a 5xx (such a page is often passing); a write is never repeated and says it
// may have been done. A DELETE's empty answer is still a success.
import { describe, expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { dist, runNode, runPoll, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { request } from '../../support/webhooks.mjs';

const env = await simulatorForFile({ count: 300, seed: 11 }, { fastRetries: true });
const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const mailGet = (mailId) =>
	runNode({
		parameters: { resource: 'mail', operation: 'get', mailId },
		credentials: env.credentials,
	});

describe('Mail → Get', () => {
	test('an HTML page answered with 200 is asked again, then fails naming text/html and its first characters; no item', async () => {
		const id = env.sim.db.mails[0].id;
		env.sim.quirks.add({ kind: 'html', method: 'GET', path: `/v1/mails/${id}` });
		const { items, error } = await mailGet(id);
		expect(items).toHaveLength(0);
		expect(error.message).toMatch(
			new RegExp(
				`answered GET /v1/mails/${id} with 200 but not the JSON record expected: text/html`,
			),
		);
		expect(error.message).toContain('Sign in to the guest network');
		expect(error.description).toMatch(/captive portal or login page/);
		expect(error.description).toMatch(/Asked 5 times/);
		expect(env.requestsTo('GET', `/v1/mails/${id}`)).toHaveLength(retryPolicy.maxAttempts);
	});

	test('a proxy page that passes: the read asks again and outputs the record', async () => {
		const id = env.sim.db.mails[0].id;
		env.sim.quirks.add({ kind: 'html', method: 'GET', path: `/v1/mails/${id}`, count: 1 });
		const { items, error } = await mailGet(id);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.id)).toEqual([id]);
		expect(env.requestsTo('GET', `/v1/mails/${id}`)).toHaveLength(2);
	});

	test('an empty 200 and a JSON string where a record is expected fail, naming them', async () => {
		const id = env.sim.db.mails[0].id;
		env.sim.quirks.add({ kind: 'empty', path: `/v1/mails/${id}` });
		const empty = await mailGet(id);
		expect(empty.items).toHaveLength(0);
		expect(empty.error.message).toMatch(/not the JSON record expected: an empty body/);
		env.sim.quirks.clear();
		env.sim.quirks.add({ kind: 'jsonString', path: `/v1/mails/${id}` });
		const string = await mailGet(id);
		expect(string.items).toHaveLength(0);
		expect(string.error.message).toMatch(
			/not the JSON record expected: a JSON string .*"\\"OK\\""/,
		);
	});
});

test('Mail → Get Many: a page answered by a login page fails the read, naming it', async () => {
	env.sim.quirks.add({ kind: 'html', method: 'GET', path: /^\/v1\/mails$/ });
	const { items, error } = await runNode({
		parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: {} },
		credentials: env.credentials,
	});
	expect(items).toHaveLength(0);
	expect(error.message).toMatch(
		/GET \/v1\/mails with 200 but not the JSON record expected: text\/html/,
	);
});

test('Webhook trigger, Add Full Resource: the page is named in mail_item_error, never put in mail_item', async () => {
	const id = env.sim.db.mails[0].id;
	env.sim.quirks.add({ kind: 'html', method: 'GET', path: `/v1/mails/${id}` });
	const { payload } = await (
		await fetch(`${env.sim.url}/_control/deliver`, {
			method: 'POST',
			body: JSON.stringify({ event: 'new-mail', id }),
		})
	).json();
	const { result } = await runWebhook({
		parameters: { events: ['new-mail'], options: { includeDetails: true } },
		request: request(payload, { secret: env.sim.webhookSecret }),
		credentials: env.credentials,
	});
	const item = result.workflowData[0][0].json;
	expect(item.mail_item).toBeUndefined();
	expect(item.mail_item_error).toMatch(/not the JSON record expected: text\/html.*Sign in/);
});

test('Poll Trigger: a read answered by a proxy page fails the poll, naming it', async () => {
	env.sim.quirks.add({ kind: 'html', method: 'GET', path: /^\/v1\/mails$/ });
	await expect(
		runPoll({
			parameters: { event: 'new-mail', filters: {}, options: {} },
			credentials: env.credentials,
		}),
	).rejects.toThrow(/GET \/v1\/mails with 200 but not the JSON record expected: text\/html/);
});

test('a write answered by a login page with 200 is not repeated and says it may have been done', async () => {
	env.sim.quirks.add({ kind: 'html', method: 'POST', path: '/v1/folders' });
	const { error } = await runNode({
		parameters: { resource: 'folder', operation: 'create', name: 'Receipts' },
		credentials: env.credentials,
	});
	expect(error.message).toMatch(/POST \/v1\/folders with 200 but not the JSON record expected/);
	expect(error.description).toMatch(/may already have acted on POST \/v1\/folders/);
	expect(error.description).toMatch(/Folder → Get Many/);
	expect(env.requestsTo('POST', '/v1/folders')).toHaveLength(1);
});

test("a DELETE's empty answer is still a success", async () => {
	const folder = env.sim.db.folders[0];
	const { items, error } = await runNode({
		parameters: { resource: 'folder', operation: 'delete', folderId: folder.id },
		credentials: env.credentials,
	});
	expect(error).toBeUndefined();
	expect(items[0].json).toEqual({ id: folder.id, deleted: true });
});
