// One shape of mail, checked with n8n's own Switch node (n8n-nodes-base of the runtime under test,
// run through the harness's WorkflowExecute): the rules of examples/branch-mail-by-rules-with-switch.json route
// the same mail item the same way whether it came from the webhook trigger (version 2), the Poll
// Trigger or Mail → Get; the examples' rules ignore letter case, so the webhook trigger's version 1.1
// output (upper-case values) takes the same branch too.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { describeRuntime } from '../setup/n8n-runtime.mjs';
import { ensureCoreLine, stagePackage } from '../setup/n8n-core-line.mjs';
import { ROOT_DIR } from '../setup/paths.mjs';
import { startSimulator } from '../simulator/server.mjs';
import { request } from '../support/webhooks.mjs';
import { DEFAULT_CREDENTIALS, runNode, runPoll, runWebhook } from '../harness/n8n-core-harness.mjs';

const SWITCH = 'n8n-nodes-base.switch';
const IF = 'n8n-nodes-base.if';
const nodeOf = (file, type) =>
	JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'examples', file), 'utf8')).nodes.find(
		(n) => n.type === type,
	);
const rules = nodeOf('branch-mail-by-rules-with-switch.json', SWITCH);
const isPackage = nodeOf('package-arrived-alert.json', IF);

let sim;
let credentials;
const types = {};
beforeAll(async () => {
	// On another n8n-core line the harness loads a staged copy of the build (as the unit project does).
	if (process.env.VMB_N8N_CORE)
		stagePackage(await ensureCoreLine(process.env.VMB_N8N_CORE), ROOT_DIR);
	const runtime = describeRuntime();
	const base = createRequire(
		path.join(runtime.dir, 'node_modules', 'n8n-nodes-base', 'package.json'),
	);
	types[SWITCH] = new (base('./dist/nodes/Switch/Switch.node.js').Switch)();
	types[IF] = new (base('./dist/nodes/If/If.node.js').If)();
	sim = await startSimulator({ count: 20, seed: 23 });
	credentials = {
		...DEFAULT_CREDENTIALS,
		baseUrl: sim.url,
		apiKey: sim.apiKey,
		webhookSecret: sim.webhookSecret,
	};
});
afterAll(async () => await sim?.close());

const control = async (url, body) =>
	await (
		await fetch(`${sim.url}/_control${url}`, { method: 'POST', body: JSON.stringify(body ?? {}) })
	).json();

/** The indexes of the outputs an example's Switch or If node sends the item to. */
async function outputsTaken(node, json) {
	const { run, error } = await runNode({
		type: node.type,
		typeVersion: node.typeVersion,
		parameters: node.parameters,
		items: [json],
		extraTypes: { [node.type]: types[node.type] },
	});
	expect(error).toBeUndefined();
	const outputs = run.data.resultData.runData['Virtual Mailbox'][0].data.main;
	return outputs.flatMap((items, index) => ((items ?? []).length > 0 ? [index] : []));
}
/** The names of the rules' outputs the item leaves by (none: no rule matched). */
const routeOf = async (json) =>
	(await outputsTaken(rules, json)).map((index) => rules.parameters.rules.values[index].outputKey);
const isPackageBranch = async (json) =>
	(await outputsTaken(isPackage, json)).includes(0) ? 'true' : 'false';

async function threeOutputs(mail) {
	const { payload } = await control('/deliver', { event: 'new-mail', id: mail.id });
	const webhook = async (typeVersion) =>
		(
			await runWebhook({
				parameters: { events: ['new-mail'], options: {} },
				request: request(payload, { secret: sim.webhookSecret }),
				credentials,
				typeVersion,
			})
		).result.workflowData[0][0].json;
	const polled = (
		await runPoll({
			parameters: { event: 'new-mail', filters: {}, options: {} },
			credentials,
			mode: 'manual',
		})
	).result[0].find((i) => i.json.id === mail.id);
	const got = (
		await runNode({
			parameters: { resource: 'mail', operation: 'get', mailId: mail.id },
			credentials,
		})
	).items[0];
	return {
		webhook: await webhook(2),
		poll: polled.json,
		get: got.json,
		webhookV1: await webhook(1.1),
	};
}

describe("one Switch rule, three outputs of the same mail (n8n's Switch node)", () => {
	for (const [label, mail, route] of [
		['a package', { sender_name: 'Parts Shop', mail_type: 'package' }, ['Packages']],
		['a bank letter', { sender_name: 'First National Bank', mail_type: 'letter' }, ['Banks']],
	]) {
		test(`${label}: the webhook trigger (v2), the Poll Trigger and Mail → Get take the same branch`, async () => {
			const added = (await control('/mail', mail)).mail;
			const outputs = await threeOutputs(added);
			expect(await routeOf(outputs.webhook)).toEqual(route);
			expect(await routeOf(outputs.poll)).toEqual(route);
			expect(await routeOf(outputs.get)).toEqual(route);
			// The package alert's If (mail_type is "package", letter case ignored): the same answer for all.
			const expected = mail.mail_type === 'package' ? 'true' : 'false';
			for (const from of ['webhook', 'poll', 'get'])
				expect(await isPackageBranch(outputs[from]), from).toBe(expected);
			if (mail.mail_type === 'package') {
				// Version 1.1 sends the values as delivered ("PACKAGE"); the rules ignore letter case.
				expect(outputs.webhookV1.mail_type).toBe('PACKAGE');
				expect(await isPackageBranch(outputs.webhookV1)).toBe('true');
				expect(await routeOf(outputs.webhookV1)).toEqual(route);
			}
		});
	}
});
