// Profiling aid for figure 2: CPU profile of n8n itself while it takes 400 signed deliveries, once
// with the trigger's default options and once with deduplication off.
// node bench/profile-trigger.mjs <out dir>; then node bench/top-functions.mjs <file>.cpuprofile
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startN8n } from '../test/e2e/n8n.mjs';
import { startSimulator } from '../test/simulator/server.mjs';
import { credentialFor, triggerWorkflow } from '../test/e2e/workflows.mjs';

const outDir = path.resolve(process.argv[2] ?? 'bench/profiles');
const sim = await startSimulator({ count: 10 });
for (const [name, options] of [['default', {}], ['dedupe-off', { duplicateWindowMinutes: 0, dropStale: false }]]) {
	const dir = path.join(outDir, name);
	fs.mkdirSync(dir, { recursive: true });
	const trigger = triggerWorkflow({ id: 'VmbProfileTrig01', name: `profile ${name}`, options, events: ['new-mail'] });
	const n8n = await startN8n({
		userFolder: fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-prof-')), port: await freePort(), nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
		credentials: [credentialFor(sim)], workflows: [trigger.workflow], waitForWebhooks: [trigger.path],
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', N8N_LOG_LEVEL: 'warn' },
	});
	const url = `${n8n.base}/webhook/${trigger.path}`;
	const t0 = performance.now();
	let next = 0;
	await Promise.all(Array.from({ length: 8 }, async () => {
		while (next < 400) {
			const n = next++;
			const raw = Buffer.from(JSON.stringify({ id: 700000 + n, mail_type: 'LETTER', mail_status: 'INBOX', weight: '0.1', measurement: { width: '1', height: '1', length: '1' }, recipient_name: 'Ada', sender_name: `P ${n}`, image_url: 'https://files.invalid/x.jpg', message: 'p' }));
			const ts = String(Date.now());
			const sig = crypto.createHmac('sha256', sim.webhookSecret).update(`${ts}.`).update(raw).digest('hex');
			const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'usgm-webhook-timestamp': ts, 'usgm-webhook-signature': sig }, body: raw });
			await r.arrayBuffer();
		}
	}));
	console.log(name, `${(400 / ((performance.now() - t0) / 1000)).toFixed(1)}/s`);
	await new Promise((resolve) => setTimeout(resolve, 5000));
	await n8n.stop();
}
await sim.close();
