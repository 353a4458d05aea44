// Before/after aid (not a figure): Return All of 10,000 mail items in real n8n, through a Webhook
// node that answers with every item, for the package of a given checkout (default: this one).
// git worktree add /tmp/old <rev> && ln -s $PWD/node_modules /tmp/old/ && (cd /tmp/old && npm run build)
// node bench/real-return-all.mjs /tmp/old; node bench/real-return-all.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const root = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
);
const { startN8n, freePort } = await import(path.join(root, 'test/e2e/real-n8n.mjs'));
const { credentialFor, operationsWorkflow } = await import(
	path.join(root, 'test/e2e/workflows.mjs')
);
const { startSimulator } = await import(path.join(root, 'test/simulator/server.mjs'));
const sim = await startSimulator({ count: 10_000, seed: 5 });
const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-real-'));
const n8n = await startN8n({
	userFolder,
	port: await freePort(),
	credentials: [credentialFor(sim)],
	workflows: [operationsWorkflow()],
	waitForWebhooks: ['op/mail-getAll-all'],
	env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', N8N_LOG_LEVEL: 'warn' },
});
const call = async () => {
	const t = performance.now();
	const r = await fetch(`${n8n.base}/webhook/op/mail-getAll-all`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
	const text = await r.text();
	let items;
	try {
		items = JSON.parse(text);
	} catch {
		items = null;
	}
	if (!Array.isArray(items) || items.length !== 10000)
		throw new Error(`got ${r.status} ${text.slice(0, 300)}`);
	return performance.now() - t;
};
for (let i = 0; i < 3; i++) await call();
const times = [];
for (let i = 0; i < 9; i++) times.push(await call());
times.sort((a, b) => a - b);
console.log(
	path.basename(root),
	'median',
	times[4].toFixed(0),
	'ms',
	'all',
	times.map((t) => t.toFixed(0)).join(' '),
);
await n8n.stop();
await sim.close();
fs.rmSync(userFolder, { recursive: true, force: true });
