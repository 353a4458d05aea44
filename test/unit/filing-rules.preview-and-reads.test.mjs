// File by Rules against the simulator: Preview Only's decisions are the decisions the real run
// makes, and an Any Text rule that already matches what the item says reads nothing more.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { request } from '../support/webhooks.mjs';
import { DEFAULT_CREDENTIALS, runNode, runWebhook } from '../harness/n8n-core-harness.mjs';

let sim;
let credentials;
beforeAll(async () => {
	nock.restore(); // the simulator is real HTTP on loopback
	sim = await startSimulator({ count: 30, seed: 5 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey, webhookSecret: sim.webhookSecret };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
beforeEach(() => sim.reset({ count: 30, seed: 5 }));

const byName = (value) => ({ __rl: true, mode: 'name', value });
const control = async (url, body) => await (await fetch(`${sim.url}/_control${url}`, { method: 'POST', body: JSON.stringify(body ?? {}) })).json();
const add = (fields) => sim.mailbox.addMail(fields);
const calls = () => sim.requests.map((r) => `${r.method} ${r.path}`);
const fileByRules = (items, extra = {}) => runNode({ parameters: { resource: 'mail', operation: 'applyRules', ...extra }, items, credentials });
const webhookItem = async (mailId) => {
	const { payload } = await control('/deliver', { event: 'new-mail', id: mailId });
	const { result } = await runWebhook({ parameters: { events: ['new-mail'], options: {} }, request: request(payload, { secret: sim.webhookSecret }), credentials, typeVersion: 2 });
	return result.workflowData[0][0].json;
};
/** A decision in the words of a real run. */
const asReal = (decision) => decision.replace(/^Would file/, 'Filed').replace('(folder would be created)', '(folder created)').replace(/would be /g, '');

describe('Preview Only decides what the real run then does', () => {
	test('two items filed into the same missing folder: the preview says it is created once, as the run does', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const b = add({ sender_name: 'IRS Fresno', mail_type: 'letter' });
		const items = [{ id: a.id, sender_name: a.sender_name }, { id: b.id, sender_name: b.sender_name }];
		const rules = { rule: [{ field: 'sender', comparison: 'containsWord', value: 'IRS', folder: byName('Tax Letters 2026') }] };

		const preview = await fileByRules(items, { rules, previewOnly: true });
		expect(preview.error).toBeUndefined();
		const real = await fileByRules(items, { rules });
		expect(real.error).toBeUndefined();
		expect(sim.db.folders.filter((f) => f.name === 'Tax Letters 2026')).toHaveLength(1);
		expect(real.items.map((i) => [i.json.decision, i.json.folder_created])).toEqual([
			['Filed into "Tax Letters 2026" (folder created)', true],
			['Filed into "Tax Letters 2026"', false],
		]);
		expect(preview.items.map((i) => [asReal(i.json.decision), i.json.folder_created])).toEqual(real.items.map((i) => [i.json.decision, i.json.folder_created]));
	});

	test('a rule whose folder ID does not exist: the preview does not promise a filing the real run refuses', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		expect(sim.db.folders.some((f) => f.id === '987654')).toBe(false);
		const rules = { rule: [{ field: 'sender', value: 'IRS', folder: { __rl: true, mode: 'id', value: '987654' } }] };
		const real = await fileByRules([{ id: a.id }], { rules });
		expect(real.error?.message ?? '').not.toBe('');
		const preview = await fileByRules([{ id: a.id }], { rules, previewOnly: true });
		const said = preview.error?.message ?? preview.items[0].json.decision;
		expect(said).not.toMatch(/^Would file/);
	});
});

describe('Any Text reads the mail item only when what the item says does not decide', () => {
	test("a new-mail delivery whose sender matches an Any Text rule is filed without reading the mail item", async () => {
		const irs = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const item = await webhookItem(irs.id);
		expect(item.sender_name).toBe('IRS Ogden');
		sim.requests.length = 0;
		const rules = { rule: [{ field: 'anyText', comparison: 'containsWord', value: 'IRS', folder: byName('Taxes') }] };
		const { items: out, error } = await fileByRules([item], { rules });
		expect(error).toBeUndefined();
		expect(out[0].json).toMatchObject({ matched_rule: 1, decision: 'Filed into "Taxes"' });
		// The sender already matches; the scan label and summary cannot undo a match.
		expect(calls()).toEqual(['GET /v1/folders', `PATCH /v1/mails/${irs.id}`]);
	});
});
