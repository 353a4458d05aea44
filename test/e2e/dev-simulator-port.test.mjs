// `npm run dev` started again with the simulator at another port (SIM_PORT, as when 4010 is
// taken): the credential the first start made pointed at the old address, so every trigger failed
// to start. The second start imports it again for the new address, and the published examples'
// triggers are subscribed by the new simulator. One dev home, two starts of test/dev.mjs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { freePort, waitFor } from './real-n8n.mjs';
import { exampleWorkflows, UNPUBLISHED_IN_DEV } from './examples.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-port-'));
const runs = [];

function startDev(n8nPort, simPort) {
	const child = spawn(process.execPath, [path.join(ROOT, 'test/dev.mjs')], {
		cwd: ROOT,
		env: {
			...Object.fromEntries(
				Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_ENV'),
			),
			VMB_DEV_HOME: home,
			N8N_PORT: String(n8nPort),
			SIM_PORT: String(simPort),
			VMB_DEV_NO_BUILD: '1',
		},
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	const run = { child, output: '' };
	runs.push(run);
	for (const stream of [child.stdout, child.stderr])
		stream.on('data', (chunk) => {
			run.output += chunk.toString();
		});
	run.exited = new Promise((resolve) => child.once('exit', resolve));
	run.ready = waitFor(
		async () => run.output.includes('is running with the Virtual Mailbox nodes'),
		600_000,
		() => child.exitCode !== null,
		'the dev banner',
	).catch((error) => {
		throw new Error(`${error.message}\n--- npm run dev said ---\n${run.output.slice(-4000)}`);
	});
	run.stop = async () => {
		if (child.exitCode !== null) return;
		child.kill('SIGINT');
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}, 60_000);
		await run.exited;
		clearTimeout(timer);
	};
	return run;
}

afterAll(async () => {
	for (const run of runs) await run.stop();
	fs.rmSync(home, { recursive: true, force: true });
}, 180_000);

test('a start with the simulator at another port has its published triggers subscribed there', async () => {
	const n8nPort = await freePort();
	const first = startDev(n8nPort, await freePort());
	await first.ready;
	await first.stop();
	const simPort = await freePort();
	const second = startDev(n8nPort, simPort);
	await second.ready;
	expect(second.output).not.toContain('did not start within a minute');
	const subscribed = (
		await (await fetch(`http://127.0.0.1:${simPort}/_control/webhooks`)).json()
	).map((s) => s.url);
	const published = exampleWorkflows().filter(
		(w) => w.path && w.workflow.active && !UNPUBLISHED_IN_DEV.includes(w.file),
	);
	expect(published.length).toBeGreaterThan(0);
	for (const { workflow, path: hook } of published)
		expect(subscribed, workflow.name).toContain(`http://127.0.0.1:${n8nPort}/webhook/${hook}`);
}, 1_500_000);
