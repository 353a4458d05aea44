// Where figure 7's time goes: one Return All of 10,000 mail items over the latency proxy, then the
// simulator's log of its requests: when each part's pages were asked for and answered, the rounds
// the run needed, and how busy the allowed parallel requests were.
//   node bench/profile-latency.mjs [maxParallelRequests]   (VMB_BENCH_RTT_MS, default 40)
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeReturnAll } from './return-all.mjs';
import { startLatencyProxyProcess } from './latency-proxy.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const parallel = Number(process.argv[2] ?? 6);
const rttMs = Number(process.env.VMB_BENCH_RTT_MS ?? 40);
const port = 4700 + Math.floor(Math.random() * 200);
const sim = fork(
	path.join(ROOT, 'test/simulator/cli.mjs'),
	['--port', String(port), '--count', '10000', '--seed', '9', '--letter-share', '70'],
	{ stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
);
await new Promise((resolve) =>
	sim.stdout.on('data', (d) => d.toString().includes('simulator on') && resolve()),
);
const url = `http://127.0.0.1:${port}`;
const proxy = await startLatencyProxyProcess({ target: url, rttMs });

for (let run = 1; run <= 3; run++) {
	await fetch(`${url}/_control/requests`, { method: 'DELETE' });
	const start = Date.now();
	const items = await nodeReturnAll(proxy.url, { maxParallelRequests: parallel });
	const wall = Date.now() - start;
	const log = (await (await fetch(`${url}/_control/requests`)).json()).filter(
		(r) => r.path === '/v1/mails',
	);
	// Time a request spent on the network and the server: from its arrival to its answer, plus the
	// two round trips the proxy adds around it (connection, then request and response). What is
	// left of the slots' time went to the client (n8n's helper, parsing) or stood idle.
	const busy = log.reduce((sum, r) => sum + (r.doneAt - r.at) + 2 * rttMs, 0);
	console.log(
		`run ${run}: ${items.length} items in ${wall} ms, ${log.length} requests, ${parallel} allowed at once; network and server ${((100 * busy) / (parallel * wall)).toFixed(0)}% of the slots' time; first request at the server after ${log[0].at - start} ms, last answer ${wall - Math.max(...log.map((r) => r.doneAt - start))} ms before the end`,
	);
	if (run === 3) {
		const parts = new Map();
		for (const r of log) {
			const key =
				Object.entries(r.query)
					.filter(([k]) => k !== 'cursor' && k !== 'limit')
					.map(([k, v]) => `${k}=${v.join('|')}`)
					.join('&') || '(the whole list)';
			parts.set(key, [...(parts.get(key) ?? []), r.at - start]);
		}
		for (const [key, times] of parts)
			console.log(
				`  ${String(times.length).padStart(3)} pages, first ${times[0]} ms, last ${times.at(-1)} ms: ${key}`,
			);
	}
}
await proxy.close();
sim.kill();
