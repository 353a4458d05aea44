// The webhook trigger where its mechanisms meet what a user does around it: the Test URL next to
// the Production URL, a credential edited while a kept copy lives, a node renamed or copied, a
// workflow duplicated, a restart, a second process. docs/seams.md cites these tests by title.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startSimulator } from '../../simulator/server.mjs';
import {
	TYPES,
	dist,
	processedData,
	runDelivery,
	runHook,
	runNode,
} from '../../harness/n8n-core-harness.mjs';
import { SECRET, payloads, request } from '../../support/webhooks.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

const fixture = await simulatorForFile({ count: 20, seed: 31 });
const { sim } = fixture;
// The deliveries here are signed with the tests' own secret (test/support/webhooks.mjs).
const credentials = { ...fixture.credentials, webhookSecret: SECRET };
beforeEach(() => processedData.reset());
afterEach(() => recentDeliveries.clear());

const ALL = ['new-mail', 'scan-update', 'open-update', 'shipment-update'];
const parameters = (options = {}) => ({ events: ALL, options });
let serial = 0;
const uniqueWorkflow = () => `wf-seams-${++serial}-${Math.random().toString(36).slice(2)}`;
/** One delivery end to end (webhook, then the execution n8n starts): at the Production URL by default, at the Test URL with mode 'manual'. */
const deliver = (
	body,
	{
		mode = 'webhook',
		workflowId,
		staticData = {},
		options = {},
		node,
		creds = credentials,
		executionId = String(++serial),
	} = {},
) =>
	runDelivery({
		parameters: parameters(options),
		request: request(body),
		credentials: creds,
		staticData,
		workflowId,
		executionId,
		mode,
		node,
	});
const ran = (run) => run.items ?? [];
const snapshot = (value) => JSON.parse(JSON.stringify(value));

describe('Listen for test event while the workflow is active', () => {
	test('a real delivery reaching the Test URL first still runs at the Production URL', async () => {
		const workflowId = uniqueWorkflow();
		const production = {}; // the active workflow's static data, in its memory
		const testRun = await deliver(payloads['new-mail'], {
			mode: 'manual',
			workflowId,
			staticData: {},
		});
		expect(ran(testRun)).toHaveLength(1);
		const copy = await deliver(payloads['new-mail'], { workflowId, staticData: production });
		expect(copy.result.webhookResponse?.ignored).toBeUndefined();
		expect(ran(copy)).toHaveLength(1);
	});

	test('a test delivery records nothing in static data, so a restart that loads it does not drop the production copy', async () => {
		const workflowId = uniqueWorkflow();
		const saved = {}; // n8n saves the static data of a test run too; the next activation loads it
		await deliver(payloads['scan-update'], { mode: 'manual', workflowId, staticData: saved });
		expect(snapshot(saved)).toEqual({});
		recentDeliveries.clear();
		expect(
			ran(await deliver(payloads['scan-update'], { workflowId, staticData: saved })),
		).toHaveLength(1);
	});

	test('test deliveries are never deduplicated or dropped as out of order: a test copy of a production delivery runs, and so does a repeat', async () => {
		const workflowId = uniqueWorkflow();
		const now = Date.now();
		const production = {};
		expect(
			ran(
				await runDelivery({
					parameters: parameters(),
					request: request(payloads['scan-update'], { timestamp: now }),
					credentials,
					staticData: production,
					workflowId,
					executionId: 'p1',
				}),
			),
		).toHaveLength(1);
		for (const executionId of ['t1', 't2']) {
			expect(
				ran(
					await deliver(payloads['scan-update'], {
						mode: 'manual',
						workflowId,
						staticData: production,
						executionId,
					}),
				),
			).toHaveLength(1);
		}
		const older = { ...payloads['scan-update'], current_status: 'IN_PROCESS' };
		const test = await runDelivery({
			parameters: parameters(),
			request: request(older, { timestamp: now - 1000 }),
			credentials,
			staticData: production,
			workflowId,
			executionId: 't3',
			mode: 'manual',
		});
		expect(ran(test)).toHaveLength(1);
		// while the production check still holds for production copies
		expect(
			(await deliver(payloads['scan-update'], { workflowId, staticData: production })).result
				.webhookResponse?.ignored,
		).toBe('duplicate');
		expect(
			processedData.rows.get(`${workflowId}|n:node-under-test`),
			'only the production delivery was claimed',
		).toHaveLength(1);
	});
});

describe('pinned data', () => {
	test('pinned data on the trigger: a manual execution uses it without waiting for a delivery; nothing is recorded or claimed', async () => {
		const staticData = {};
		const { items, error } = await runNode({
			type: TYPES.trigger,
			items: null,
			parameters: parameters(),
			credentials,
			staticData,
			pinData: { 'Virtual Mailbox': [{ json: { event: 'new-mail', pinned: true } }] },
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ event: 'new-mail', pinned: true }]);
		expect(snapshot(staticData)).toEqual({});
		expect(processedData.rows.size).toBe(0);
	});
});

describe('the node renamed or copied, the workflow duplicated', () => {
	test('a renamed trigger keeps its claims (keyed by node id): a copy arriving after the rename runs once', async () => {
		const workflowId = uniqueWorkflow();
		const first = await deliver(payloads['shipment-update'], {
			workflowId,
			node: { id: 'trigger-1', name: 'Virtual Mailbox' },
		});
		expect(ran(first)).toHaveLength(1);
		// renamed: n8n keeps a node's static data under its name, so the webhook's own check starts empty
		const renamed = await deliver(payloads['shipment-update'], {
			workflowId,
			node: { id: 'trigger-1', name: 'Mail arrives' },
		});
		expect(renamed.result.workflowData, 'the webhook accepts it').toBeDefined();
		expect(ran(renamed), 'the claim ends it').toEqual([]);
	});

	test('a copied trigger (new node id) and a duplicated workflow (new workflow id) each run the delivery once', async () => {
		const workflowId = uniqueWorkflow();
		expect(
			ran(
				await deliver(payloads['new-mail'], {
					workflowId,
					node: { id: 'trigger-1', name: 'Trigger' },
				}),
			),
		).toHaveLength(1);
		expect(
			ran(
				await deliver(payloads['new-mail'], {
					workflowId,
					node: { id: 'trigger-2', name: 'Trigger1' },
				}),
			),
		).toHaveLength(1);
		expect(
			ran(
				await deliver(payloads['new-mail'], {
					workflowId: uniqueWorkflow(),
					node: { id: 'trigger-1', name: 'Trigger' },
				}),
			),
		).toHaveLength(1);
		// and a copy to each runs nothing more
		recentDeliveries.clear();
		expect(
			ran(
				await deliver(payloads['new-mail'], {
					workflowId,
					node: { id: 'trigger-2', name: 'Trigger1' },
				}),
			),
		).toEqual([]);
	});
});

describe('the credential edited or swapped', () => {
	const detailsOptions = { includeDetails: true };

	test("Add Full Resource after the API key was replaced in the credential: the kept copy's rejected key is read again once, and the record is added", async () => {
		const workflowId = uniqueWorkflow();
		const mail = sim.db.mails[0];
		const body = { ...payloads['new-mail'], id: mail.id };
		const old = { ...credentials, apiKey: 'test_sk_rotated_out_0000' };
		const before = await deliver(body, { workflowId, creds: old, options: detailsOptions });
		expect(ran(before)[0].json.mail_item_error).toMatch(/401|invalid/i);
		// the user pastes the new key; the next delivery comes within the minute the copy is kept
		const after = await deliver(
			{ ...body, mail_status: 'ARCHIVED' },
			{ workflowId, creds: credentials, options: detailsOptions },
		);
		const item = ran(after)[0].json;
		expect(item.mail_item_error).toBeUndefined();
		expect(item.mail_item).toMatchObject({ id: mail.id });
		expect(JSON.stringify(item)).not.toContain(credentials.apiKey);
	});

	test('a rejected key that is still the stored one is asked once more, not in a loop', async () => {
		const workflowId = uniqueWorkflow();
		const bad = { ...credentials, apiKey: 'test_sk_never_valid_0000' };
		const body = { ...payloads['new-mail'], id: sim.db.mails[1].id };
		await deliver(body, { workflowId, creds: bad, options: detailsOptions });
		const before = sim.requests.length;
		const run = await deliver(
			{ ...body, mail_status: 'ARCHIVED' },
			{ workflowId, creds: bad, options: detailsOptions },
		);
		expect(ran(run)[0].json.mail_item_error).toMatch(/401|invalid/i);
		expect(sim.requests.slice(before).filter((r) => r.path.startsWith('/v1/mails/'))).toHaveLength(
			2,
		);
	});

	test('the credential edited to another account (server, key and secret): the first delivery signed with the new secret reads it again, and Add Full Resource asks the new account', async () => {
		const other = await startSimulator({ count: 5, seed: 32 });
		try {
			const workflowId = uniqueWorkflow();
			await deliver(
				{ ...payloads['new-mail'], id: sim.db.mails[2].id },
				{ workflowId, options: detailsOptions },
			);
			const edited = {
				...credentials,
				baseUrl: other.url,
				apiKey: other.apiKey,
				webhookSecret: 'whsec_the_other_account_99',
			};
			const mail = other.db.mails[0];
			const [before, otherBefore] = [sim.requests.length, other.requests.length];
			const run = await runDelivery({
				parameters: parameters(detailsOptions),
				request: request(
					{ ...payloads['new-mail'], id: mail.id },
					{ secret: edited.webhookSecret },
				),
				credentials: edited,
				workflowId,
				executionId: String(++serial),
			});
			expect(ran(run)[0].json.mail_item).toMatchObject({ id: mail.id });
			expect(sim.requests.length - before, 'requests to the old account').toBe(0);
			expect(other.requests.slice(otherBefore).map((r) => r.path)).toEqual([
				`/v1/mails/${mail.id}`,
			]);
		} finally {
			await other.close();
		}
	});

	test('swapping to another credential (another id) reads it at once: the kept copy is keyed by credential id', async () => {
		const workflowId = uniqueWorkflow();
		const other = { ...credentials, webhookSecret: 'whsec_other_account_77777' };
		await deliver(payloads['new-mail'], { workflowId, node: { credentialId: '1' } });
		const run = await runDelivery({
			parameters: parameters(),
			request: request({ ...payloads['new-mail'], id: 4242 }, { secret: other.webhookSecret }),
			credentials: other,
			workflowId,
			node: { credentialId: '2' },
		});
		expect(run.response.statusCode).toBe(200);
		expect(ran(run)).toHaveLength(1);
	});
});

describe('deactivate and reactivate, restart, a second process', () => {
	test('reactivating keeps the duplicate check and the claims: a copy sent before the deactivation and delivered after it runs nothing', async () => {
		const workflowId = uniqueWorkflow();
		const saved = {};
		expect(
			ran(await deliver(payloads['open-update'], { workflowId, staticData: saved })),
		).toHaveLength(1);
		await runHook({ parameters: parameters(), method: 'delete', credentials, workflowId });
		await runHook({ parameters: parameters(), method: 'create', credentials, workflowId });
		expect(
			(await deliver(payloads['open-update'], { workflowId, staticData: saved })).result
				.webhookResponse?.ignored,
		).toBe('duplicate');
		// after a restart (memory gone, static data possibly unsaved) the claim still ends it
		recentDeliveries.clear();
		expect(ran(await deliver(payloads['open-update'], { workflowId, staticData: {} }))).toEqual([]);
	});
});
