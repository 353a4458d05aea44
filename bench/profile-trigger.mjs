// Profiling aid for figure 2: CPU profile of n8n itself while it takes 400 signed deliveries through
// the trigger (default options), and 400 through the minimal community trigger of bench/floor-package.
// node bench/profile-trigger.mjs <out dir>; then node bench/top-functions.mjs <file>.cpuprofile
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startN8n } from '../test/e2e/real-n8n.mjs';
import { startSimulator } from '../test/simulator/server.mjs';
import { credentialFor, triggerWorkflow } from '../test/e2e/workflows.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(process.argv[2] ?? 'bench/profiles');
const sim = await startSimulator({ count: 10 });
const trigger = triggerWorkflow({
	id: 'VmbProfileTrig01',
	name: 'profile trigger',
	options: {},
	events: ['new-mail'],
});
const floor = {
	id: 'VmbProfileFloor1',
	name: 'profile floor',
	active: true,
	nodes: [
		{
			id: 'c0ffee00-0000-4000-8000-000000000003',
			name: 'Floor',
			type: 'n8n-nodes-vmb-bench-floor.benchFloorTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: 'c0ffee00-0000-4000-8000-0000000000cc',
			parameters: {},
		},
	],
	connections: {},
	settings: { executionOrder: 'v1' },
	pinData: {},
};
const variants = [
	['trigger', trigger.workflow, trigger.path, true],
	['floor', floor, 'c0ffee00-0000-4000-8000-0000000000cc/webhook', false],
];
let mailId = 700_000;
for (const [name, workflow, webhookPath, sign] of variants) {
	const dir = path.join(outDir, name);
	fs.mkdirSync(dir, { recursive: true });
	const n8n = await startN8n({
		userFolder: fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-prof-')),
		port: await freePort(),
		nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
		credentials: [credentialFor(sim)],
		workflows: [workflow],
		waitForWebhooks: [webhookPath],
		extraPackages: [path.join(ROOT, 'bench', 'floor-package')],
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', N8N_LOG_LEVEL: 'warn' },
	});
	const url = `${n8n.base}/webhook/${webhookPath}`;
	const t0 = performance.now();
	let next = 0;
	await Promise.all(
		Array.from({ length: 8 }, async () => {
			while (next < 400) {
				next++;
				const raw = Buffer.from(
					JSON.stringify({
						id: mailId++,
						mail_type: 'LETTER',
						mail_status: 'INBOX',
						weight: '0.1',
						measurement: { width: '1', height: '1', length: '1' },
						recipient_name: 'Ada',
						sender_name: 'P',
						image_url: 'https://files.invalid/x.jpg',
						message: 'p',
					}),
				);
				const ts = String(Date.now());
				const headers = { 'content-type': 'application/json' };
				if (sign)
					Object.assign(headers, {
						'usgm-webhook-timestamp': ts,
						'usgm-webhook-signature': crypto
							.createHmac('sha256', sim.webhookSecret)
							.update(`${ts}.`)
							.update(raw)
							.digest('hex'),
					});
				const r = await fetch(url, { method: 'POST', headers, body: raw });
				await r.arrayBuffer();
			}
		}),
	);
	console.log(name, `${(400 / ((performance.now() - t0) / 1000)).toFixed(1)}/s`);
	await new Promise((resolve) => setTimeout(resolve, 5000));
	await n8n.stop();
}
await sim.close();
