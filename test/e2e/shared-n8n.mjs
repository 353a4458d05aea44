// One real n8n shared by the end-to-end files that need no start of their own (the e2e project runs
// two files at a time, each process keeping its instance from file to file). A start takes 12-17 s
// on a quiet 2-core machine and a minute and more on a loaded one; a file's workflows and
// credentials reach the running instance through its REST API in seconds. Files that stop n8n
// while events happen, need another environment or run the dev command keep their own start.
//
// Each file is independent: `useSharedN8n` gives the instance exactly the file's credentials,
// pointed at the file's simulator, and creates the file's workflows afresh (deleting any left
// under the same ids, and with them their executions, claims and static data); `release()` deletes
// them again. The instance runs with n8n's default security settings and a HOME of its own, as the
// examples' tests need.
import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort, restClient, startN8n, untilUnpublished, waitFor } from './real-n8n.mjs';
import { examplesHome } from './examples.mjs';
import { writeToDatabase } from './n8n-database.mjs';

/** The instance lives on globalThis: vitest evaluates each file's modules again, the process stays. */
const KEY = Symbol.for('vmb.e2e.sharedN8n');

async function boot() {
	const folder = fs.mkdtempSync(path.join(inject('e2eRunDir'), 'shared-n8n-'));
	const userFolder = path.join(folder, 'n8n');
	const home = examplesHome(path.join(folder, 'home'));
	// Info: the trigger's lines the dev command's simulator follows (try-it-locally.test.mjs).
	const env = { ...home.env, N8N_LOG_LEVEL: 'info' };
	const { filesFolder } = home;
	const port = await freePort();
	const listeners = new Set();
	const log = (line) => {
		if (process.env.VMB_E2E_LOG) process.stderr.write(`${line}\n`);
		for (const listener of listeners) listener(line);
	};
	const start = async () => {
		const n8n = await startN8n({ userFolder, port, env, log });
		// The run's global teardown stops it if this process does not (test/setup/e2e-setup.mjs).
		fs.writeFileSync(path.join(folder, 'pid'), String(n8n.child.pid));
		return n8n;
	};
	const shared = {
		n8n: await start(),
		filesFolder,
		listeners,
		async restart() {
			await shared.n8n.stop();
			shared.n8n = await start();
			shared.rest = await restClient(shared.n8n.base);
		},
	};
	shared.rest = await restClient(shared.n8n.base);
	return shared;
}

/** The shared n8n, started by the first file that asks: { n8n, rest, filesFolder, … }. */
export async function sharedN8n() {
	globalThis[KEY] ??= boot().catch((error) => {
		delete globalThis[KEY];
		throw error;
	});
	return await globalThis[KEY];
}

/** Deletes a workflow as the editor does (unpublish, archive, delete), if it exists. */
async function deleteWorkflow(rest, id) {
	let stored;
	try {
		stored = (await rest.call('GET', `/rest/workflows/${id}`)).data;
	} catch (error) {
		if (/→ 404/.test(error.message)) return;
		throw error;
	}
	if (stored.active) await rest.call('POST', `/rest/workflows/${id}/deactivate`, {});
	if (!stored.isArchived)
		await untilUnpublished(() => rest.call('POST', `/rest/workflows/${id}/archive`, {}));
	await untilUnpublished(() => rest.call('DELETE', `/rest/workflows/${id}`));
}

/**
 * Exactly the file's credentials in the instance, as in an n8n of its own: the editor selects a
 * new node's credential by itself only when there is one of its type. Kept ones are pointed at the
 * file's simulator; missing ones are imported (n8n's REST API cannot choose a credential's id, which
 * the workflows name); others are deleted.
 */
async function useCredentials(shared, credentials) {
	const { rest } = shared;
	const wanted = new Map(credentials.map((c) => [c.id, c]));
	const present = new Set();
	for (const { id } of (await rest.call('GET', '/rest/credentials')).data) {
		const credential = wanted.get(id);
		if (!credential) await rest.call('DELETE', `/rest/credentials/${id}`);
		else {
			const { name, type, data } = credential;
			await rest.call('PATCH', `/rest/credentials/${id}`, { name, type, data });
			present.add(id);
		}
	}
	const missing = credentials.filter((c) => !present.has(c.id));
	await writeToDatabase(shared.n8n, { credentials: missing });
}

/**
 * The shared n8n for one test file: exactly `credentials` (of workflows.mjs, pointed at the file's
 * simulator), `workflows` created afresh under their ids and the active ones activated, then
 * `waitForWebhooks` registered. `log` receives n8n's output lines until `release()`.
 * Returns { n8n, rest, filesFolder, restart({ waitForWebhooks }), release() }; `n8n` and `rest`
 * change with a restart.
 */
export async function useSharedN8n({
	credentials = [],
	workflows = [],
	waitForWebhooks = [],
	log,
}) {
	const shared = await sharedN8n();
	const { rest } = shared;
	if (log) shared.listeners.add(log);
	await useCredentials(shared, credentials);
	for (const { id } of workflows) await deleteWorkflow(rest, id);
	const major = shared.n8n.runtime.major;
	if (major >= 2) {
		for (const { active: _active, ...workflow } of workflows)
			await rest.call('POST', '/rest/workflows', workflow);
	} else if (workflows.length) {
		// n8n 1.x gives a workflow made through its REST API an id of its own: written under the
		// file's ids (inactive) into the running instance's database instead.
		await writeToDatabase(shared.n8n, { workflows });
	}
	for (const { id } of workflows.filter((w) => w.active)) {
		const { data: saved } = await rest.call('GET', `/rest/workflows/${id}`);
		await rest.call('POST', `/rest/workflows/${id}/activate`, { versionId: saved.versionId });
	}
	const registered = async (paths) => {
		for (const webhookPath of paths)
			await waitFor(
				async () =>
					/not registered for GET/i.test(
						await (await fetch(`${shared.n8n.base}/webhook/${webhookPath}`)).text(),
					),
				60_000,
				() => false,
				`webhook ${webhookPath}`,
			);
	};
	await registered(waitForWebhooks);
	return {
		get n8n() {
			return shared.n8n;
		},
		get rest() {
			return shared.rest;
		},
		filesFolder: shared.filesFolder,
		/** Stops and starts the shared n8n on the same database and port. */
		async restart({ waitForWebhooks: paths = [] } = {}) {
			await shared.restart();
			await registered(paths);
		},
		/** Deletes the file's workflows and stops passing n8n's output to `log`. */
		async release() {
			try {
				for (const { id } of workflows) await deleteWorkflow(shared.rest, id);
			} finally {
				if (log) shared.listeners.delete(log);
			}
		},
	};
}
