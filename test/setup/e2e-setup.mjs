// Global setup of the end-to-end project: everything real n8n (the runtime VMB_N8N names, 2.41.1
// by default) and the editor check need is installed (or the run stops with the cause) before the
// first e2e test starts, with progress a person can follow. Instant when all of it is already there.
// The run's folder holds the n8n the files share (test/e2e/shared-n8n.mjs): the teardown stops it
// and removes the folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureRuntime } from './n8n-runtime.mjs';
import { ensureChromium } from './system-packages.mjs';
import { ensureDatabaseTemplate } from '../e2e/real-n8n.mjs';

export default async function setup(project) {
	const log = (line) => process.stdout.write(`[e2e setup] ${line}\n`);
	project.provide('chromiumPath', ensureChromium(log));
	await ensureRuntime({ log });
	await ensureDatabaseTemplate();
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-e2e-run-'));
	project.provide('e2eRunDir', runDir);
	return async () => {
		for (const entry of fs.readdirSync(runDir)) {
			const pidFile = path.join(runDir, entry, 'pid');
			if (fs.existsSync(pidFile)) await stopGroup(Number(fs.readFileSync(pidFile, 'utf8')));
		}
		fs.rmSync(runDir, { recursive: true, force: true });
	};
}

/** SIGTERM to an n8n's process group (started detached), SIGKILL if it is still there 15 s later. */
async function stopGroup(pid) {
	const alive = () => {
		try {
			process.kill(-pid, 0);
			return true;
		} catch {
			return false;
		}
	};
	if (!alive()) return;
	process.kill(-pid, 'SIGTERM');
	for (let waited = 0; waited < 15_000 && alive(); waited += 250)
		await new Promise((resolve) => setTimeout(resolve, 250));
	if (alive()) process.kill(-pid, 'SIGKILL');
}
