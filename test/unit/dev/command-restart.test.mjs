// What `npm run dev` decides at a start of a dev home whose n8n data the user has changed since
// the last start: which examples it imports (each once, never over the user's edits, never back
// after the user deleted one), what it reads as published (n8n's published version, not the
// example files), and what its banner says about it. The mailroom names each subscription by its
// workflow and says what n8n answered in words. Real n8n runs it in test/e2e/dev-restart.test.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
	credentialToImport,
	examplesToImport,
	hookOfUrl,
	publishedNotes,
	recordImported,
	triggersReady,
	workflowNameAt,
	workflowState,
	workflowsInN8n,
} from '../../simulator/dev-session.mjs';
import { devWorkflows, UNPUBLISHED_IN_DEV } from '../../e2e/examples.mjs';
import { followTriggers } from '../../simulator/follow-triggers.mjs';
import { startSimulator } from '../../simulator/server.mjs';
import { answerInWords } from '../../simulator/webhooks.mjs';

const folders = [];
afterAll(() => {
	for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});
const userFolder = () => {
	folders.push(fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-n8n-')));
	return folders.at(-1);
};
const examples = devWorkflows('/tmp/files');
const byFile = (file) => examples.find((w) => w.file === file);

describe('the examples a start imports', () => {
	test('the first start imports every example; a later start none, even of the ones the user deleted', () => {
		const folder = userFolder();
		const first = examplesToImport(folder, examples);
		expect(first.firstRun).toBe(true);
		expect(first.workflows).toEqual(examples);
		recordImported(folder, examples);
		expect(examplesToImport(folder, examples)).toEqual({ firstRun: false, workflows: [] });
	});

	test('an example added to examples/ since the last start is imported, and only it', () => {
		const folder = userFolder();
		recordImported(
			folder,
			examples.filter((w) => w.file !== 'save-completed-scans.json'),
		);
		const plan = examplesToImport(folder, examples);
		expect(plan.firstRun).toBe(false);
		expect(plan.workflows.map((w) => w.file)).toEqual(['save-completed-scans.json']);
	});

	test('a start whose simulator answers at another address (SIM_PORT) imports its credential again; one at the same address does not', () => {
		const folder = userFolder();
		expect(credentialToImport(folder, 'http://127.0.0.1:4010')).toBe(true);
		recordImported(folder, examples, 'http://127.0.0.1:4010');
		expect(credentialToImport(folder, 'http://127.0.0.1:4010')).toBe(false);
		expect(credentialToImport(folder, 'http://127.0.0.1:4011')).toBe(true);
		// An older marker does not say which address the credential has.
		fs.writeFileSync(path.join(folder, '.vmb-imported'), '2026-01-01T00:00:00.000Z');
		expect(credentialToImport(folder, 'http://127.0.0.1:4010')).toBe(true);
	});

	test("an older dev command's marker (a date) counts as every example imported", () => {
		const folder = userFolder();
		fs.writeFileSync(path.join(folder, '.vmb-imported'), '2026-01-01T00:00:00.000Z');
		expect(examplesToImport(folder, examples)).toEqual({ firstRun: false, workflows: [] });
	});
});

const trigger = (webhookId, extra = {}) => ({
	name: 'New mail',
	type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
	webhookId,
	parameters: { events: ['new-mail'] },
	...extra,
});

describe("what is published, from n8n's answer", () => {
	test("a published workflow's triggers are those of its published version, not of the draft", () => {
		const state = workflowState({
			id: 'w1',
			name: 'Mine',
			active: true,
			activeVersionId: 'v1',
			nodes: [trigger('draft-hook')],
			activeVersion: { nodes: [trigger('published-hook')] },
		});
		expect(state).toMatchObject({
			published: true,
			triggers: [{ node: 'New mail', path: 'published-hook/webhook', events: ['new-mail'] }],
		});
		expect(state.hooks.sort()).toEqual(['draft-hook', 'published-hook']);
	});

	test('an unpublished workflow is not published whatever its file said; a disabled trigger has no webhook', () => {
		expect(
			workflowState({ id: 'w', name: 'n', active: false, activeVersionId: null, nodes: [] })
				.published,
		).toBe(false);
		expect(
			workflowState({
				id: 'w',
				name: 'n',
				active: true,
				nodes: [trigger('h', { disabled: true })],
			}).triggers,
		).toEqual([]);
	});

	test('a Production or Test URL names its workflow', () => {
		const workflows = [{ id: 'w', name: 'My filing', hooks: ['abc-1'], triggers: [] }];
		expect(hookOfUrl('http://127.0.0.1:5678/webhook/abc-1/webhook')).toBe('abc-1');
		expect(workflowNameAt(workflows, 'http://127.0.0.1:5678/webhook-test/abc-1/webhook')).toBe(
			'My filing',
		);
		expect(workflowNameAt(workflows, 'http://127.0.0.1:5678/webhook/other/webhook')).toBe(
			undefined,
		);
	});
});

describe('the banner', () => {
	const inN8n = (changes) =>
		examples.map((w) => ({
			id: w.workflow.id,
			name: w.workflow.name,
			published: Boolean(w.workflow.active),
			hooks: [],
			triggers: w.path ? [{ node: 'New mail', path: w.path, events: w.events }] : [],
			...changes[w.file],
		}));

	test('as imported: the examples left unpublished, with how to try them', () => {
		const notes = publishedNotes(inN8n({}), examples, UNPUBLISHED_IN_DEV);
		expect(notes.slice(1)).toEqual([
			'"Virtual Mailbox: file new mail by sender" is not published (it would file the same mail as the rules): publish it and unpublish "Virtual Mailbox: file mail by rules" to try it.',
			'"Virtual Mailbox: branch mail by rules (Switch)" is not published (it would file the same mail as the rules): publish it and unpublish "Virtual Mailbox: file mail by rules" to try it.',
		]);
		expect(notes[0]).toContain('"Virtual Mailbox: file mail by rules"');
	});

	test('after the user followed it, renamed one and deleted another: what n8n has now, by its names now', () => {
		const workflows = inN8n({
			'file-new-mail-by-sender.json': { published: true, name: 'Sender folders' },
			'file-mail-by-rules.json': { published: false },
		}).filter((w) => w.id !== byFile('package-arrived-alert.json').workflow.id);
		const notes = publishedNotes(workflows, examples, UNPUBLISHED_IN_DEV);
		expect(notes[0]).toContain('"Sender folders"');
		expect(notes[0]).not.toContain('file mail by rules');
		expect(notes[0]).not.toContain('package arrived alert');
		expect(notes.slice(1)).toEqual([
			'"Virtual Mailbox: branch mail by rules (Switch)" is not published: publish it to try it.',
		]);
	});
});

describe('waiting for the published triggers', () => {
	const published = [{ name: 'Mine', triggers: [{ node: 'New mail', path: 'hook-1/webhook' }] }];

	test('a trigger that does not start is named and the start goes on; n8n exiting meanwhile ends the start', async () => {
		const sim = await startSimulator({ count: 1, seed: 1 });
		try {
			const said = [];
			const alive = { base: 'http://127.0.0.1:9', child: { exitCode: null, signalCode: null } };
			await triggersReady({
				n8n: alive,
				simUrl: sim.url,
				published,
				say: (line) => said.push(line),
				timeoutMs: 300,
			});
			expect(said).toEqual([
				'"Mine" is published, but its trigger "New mail" did not start within a minute (see n8n\'s Executions and the workflow\'s error).',
			]);
			said.length = 0;
			const exited = { base: 'http://127.0.0.1:9', child: { exitCode: 1, signalCode: null } };
			await expect(
				triggersReady({
					n8n: exited,
					simUrl: sim.url,
					published,
					say: (line) => said.push(line),
					timeoutMs: 300,
				}),
			).rejects.toThrow(/n8n exited/);
			expect(said).toEqual([]);
		} finally {
			await sim.close();
		}
	});
});

describe("what n8n lists, as the user's editor shows it", () => {
	/** A REST client over workflows as n8n stores them (GET /rest/workflows lists archived ones too). */
	const restOver = (stored) => ({
		call: async (method, p) => {
			if (p === '/rest/workflows')
				return { data: stored.map(({ id, name, isArchived }) => ({ id, name, isArchived })) };
			return { data: stored.find((w) => p === `/rest/workflows/${w.id}`) };
		},
	});

	test('an example the user deleted in the editor (n8n archives it) counts as deleted: the banner never asks to publish it', async () => {
		const archived = byFile('branch-mail-by-rules-with-switch.json').workflow.id;
		const stored = examples.map((w) => ({
			...w.workflow,
			active: Boolean(w.workflow.active),
			activeVersionId: w.workflow.active ? 'v1' : null,
			isArchived: w.workflow.id === archived,
		}));
		const inN8n = await workflowsInN8n(restOver(stored));
		expect(inN8n.map((w) => w.id)).not.toContain(archived);
		const notes = publishedNotes(inN8n, examples, UNPUBLISHED_IN_DEV).join('\n');
		expect(notes).not.toContain('branch mail by rules (Switch)');
		expect(notes).toContain(
			'"Virtual Mailbox: file new mail by sender" is not published (it would file the same mail as the rules)',
		);
	});
});

describe('the mailroom, by workflow name and in words', () => {
	test("n8n's answers in words: a run started, a delivery ignored, no webhook, refused, no answer", () => {
		expect(answerInWords({ status: 200, answer: 'firstEntryJson' })).toBe(
			'received: the workflow runs',
		);
		expect(answerInWords({ status: 200, answer: '{"message":"Workflow was started"}' })).toBe(
			'received: the workflow runs',
		);
		expect(answerInWords({ status: 200, answer: '{"received":true,"ignored":"duplicate"}' })).toBe(
			'received, not run: duplicate',
		);
		expect(
			answerInWords({
				status: 404,
				answer: '{"code":404,"message":"The requested webhook \\"POST x\\" is not registered."}',
			}),
		).toBe('not listening: The requested webhook "POST x" is not registered.');
		expect(answerInWords({ status: 401, answer: 'signature mismatch' })).toBe(
			'refused: signature mismatch',
		);
		expect(answerInWords({ status: null, error: 'fetch failed' })).toBe('no answer: fetch failed');
	});

	test('a followed trigger is subscribed with its workflow name, and its deliveries carry the name and the words', async () => {
		const sim = await startSimulator({ count: 5, seed: 1 });
		const received = await import('node:http').then(
			({ createServer }) =>
				new Promise((resolve) => {
					const server = createServer((req, res) => res.end('firstEntryJson'));
					server.listen(0, '127.0.0.1', () => resolve(server));
				}),
		);
		try {
			const url = `http://127.0.0.1:${received.address().port}/webhook/hook-7/webhook`;
			const follower = followTriggers(sim.url, {
				nameOf: async (u) => workflowNameAt([{ name: 'Bills to Taxes', hooks: ['hook-7'] }], u),
			});
			follower.line(
				`Virtual Mailbox Trigger active: register ${url} in the dashboard for new-mail (one subscription per event)`,
			);
			await follower.settled();
			expect(await (await fetch(`${sim.url}/_control/webhooks`)).json()).toEqual([
				{ event: 'new-mail', url, origin: 'n8n', name: 'Bills to Taxes' },
			]);
			const { deliveries } = await (
				await fetch(`${sim.url}/_control/mail`, { method: 'POST', body: '{}' })
			).json();
			expect(deliveries).toMatchObject([
				{ url, status: 200, name: 'Bills to Taxes', said: 'received: the workflow runs' },
			]);
			// Named later (subscribed before n8n's REST API answered).
			await fetch(`${sim.url}/_control/webhooks`, {
				method: 'PATCH',
				body: JSON.stringify({ url, name: 'Renamed' }),
			});
			expect((await (await fetch(`${sim.url}/_control/mailroom`)).json()).subscriptions).toEqual([
				{ event: 'new-mail', url, origin: 'n8n', name: 'Renamed' },
			]);
		} finally {
			received.close();
			await sim.close();
		}
	});
});
