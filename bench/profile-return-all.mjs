// Profiling aid for figure 1: node --cpu-prof bench/profile-return-all.mjs, then summarise the
// .cpuprofile with bench/top-functions.mjs.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeReturnAll } from './return-all.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = 4900 + Math.floor(Math.random() * 90);
const child = fork(
	path.join(ROOT, 'test/simulator/cli.mjs'),
	['--port', String(port), '--count', '10000'],
	{ stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
);
await new Promise((resolve) =>
	child.stdout.on('data', (d) => d.toString().includes('simulator on') && resolve()),
);
for (let i = 0; i < 6; i++) {
	const t = performance.now();
	const items = await nodeReturnAll(`http://127.0.0.1:${port}`);
	console.log(items.length, Math.round(performance.now() - t), 'ms');
}
child.kill();
