// The rows test/e2e/n8n-database.mjs writes are the rows n8n's own `import:credentials` and
// `import:workflow` write, on the runtime VMB_N8N names: for a new workflow and credential, and for
// a workflow written again over one n8n already holds (a trigger's static data there is n8n's).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { ensureRuntime } from '../setup/n8n-runtime.mjs';
import { RUNTIME_CACHE } from '../setup/atomic-install.mjs';
import { exampleWorkflows } from './examples.mjs';
import { credentialFor } from './workflows.mjs';
import { prepareDatabase, queryDatabase, writeToDatabase } from './n8n-database.mjs';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-n8n-database-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const CREDENTIAL = credentialFor({
	url: 'http://127.0.0.1:4010',
	apiKey: 'test_sk_rows',
	webhookSecret: 'whsec_rows',
});
const { workflow: WORKFLOW } = exampleWorkflows().find(
	(w) => w.file === 'file-new-mail-by-sender.json',
);

/** A fresh user folder with its migrated database: { runtime, env, cli(args) }. */
async function instance(name) {
	const runtime = await ensureRuntime();
	const userFolder = path.join(home, name);
	const env = {
		PATH: `${path.dirname(runtime.node)}${path.delimiter}${process.env.PATH}`,
		HOME: userFolder,
		N8N_USER_FOLDER: userFolder,
		TMPDIR: os.tmpdir(),
		DB_TYPE: 'sqlite',
		N8N_ENCRYPTION_KEY: 'vmb-e2e-fixed-encryption-key-0001',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
	};
	const n8n = { runtime, env };
	await prepareDatabase(n8n, path.join(RUNTIME_CACHE, 'database-templates'));
	n8n.cli = async (args) =>
		await promisify(execFile)(runtime.node, [runtime.n8n, ...args], {
			env,
			timeout: 180_000,
			maxBuffer: 32 << 20,
		});
	n8n.import = async (what, records) => {
		const file = path.join(home, `${name}-${what}.json`);
		fs.writeFileSync(file, JSON.stringify(records));
		await n8n.cli([`import:${what}`, `--input=${file}`]);
	};
	n8n.rows = async (sql, params) => await queryDatabase(n8n, sql, params);
	return n8n;
}

const parsed = (row) =>
	Object.fromEntries(
		Object.entries(row).map(([k, v]) => {
			if (typeof v !== 'string') return [k, v];
			try {
				return [k, JSON.parse(v)];
			} catch {
				return [k, v];
			}
		}),
	);
const without = (row, ...keys) =>
	Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

describe('rows written into n8n database', () => {
	test('a new credential and workflow: the rows n8n import writes', async () => {
		const written = await instance('written');
		const imported = await instance('imported');
		await writeToDatabase(written, { credentials: [CREDENTIAL], workflows: [WORKFLOW] });
		await imported.import('credentials', [CREDENTIAL]);
		await imported.import('workflow', [WORKFLOW]);
		const snapshot = async (n8n) => ({
			workflow: (await n8n.rows('SELECT * FROM workflow_entity')).map((r) =>
				without(parsed(r), 'versionId', 'createdAt', 'updatedAt'),
			),
			history: (await n8n.rows('SELECT * FROM workflow_history')).map((r) =>
				without(parsed(r), 'versionId', 'createdAt', 'updatedAt'),
			),
			sharedWorkflow: (await n8n.rows('SELECT * FROM shared_workflow')).map((r) =>
				without(r, 'createdAt', 'updatedAt'),
			),
			credential: (await n8n.rows('SELECT * FROM credentials_entity')).map((r) =>
				without(r, 'data', 'createdAt', 'updatedAt'),
			),
			sharedCredential: (await n8n.rows('SELECT * FROM shared_credentials')).map((r) =>
				without(r, 'createdAt', 'updatedAt'),
			),
		});
		expect(await snapshot(written)).toEqual(await snapshot(imported));
	}, 600_000);

	test('a workflow written again over the one n8n holds keeps its static data, as n8n import keeps it', async () => {
		const triggerState = { 'node:Virtual Mailbox Trigger': { caughtUpTo: '2026-11-28T00:00:00Z' } };
		const stateAfterSecondWrite = async (name, writeAgain) => {
			const n8n = await instance(name);
			await writeToDatabase(n8n, { credentials: [CREDENTIAL], workflows: [WORKFLOW] });
			// What n8n saves for the trigger while the workflow runs.
			await n8n.rows('UPDATE workflow_entity SET "staticData" = ? WHERE id = ?', [
				JSON.stringify(triggerState),
				WORKFLOW.id,
			]);
			await writeAgain(n8n);
			const [row] = await n8n.rows('SELECT "staticData" FROM workflow_entity WHERE id = ?', [
				WORKFLOW.id,
			]);
			return row.staticData === null ? null : JSON.parse(row.staticData);
		};
		const byImport = await stateAfterSecondWrite('again-imported', (n8n) =>
			n8n.import('workflow', [WORKFLOW]),
		);
		const byWrite = await stateAfterSecondWrite('again-written', (n8n) =>
			writeToDatabase(n8n, { workflows: [WORKFLOW] }),
		);
		expect(byImport).toEqual(triggerState);
		expect(byWrite).toEqual(byImport);
	}, 600_000);
});
