// What Confirm List Unchanged (the confirming second read of Return All) costs, on 10,000 items.
// Baseline (the default, one read) and confirmed reads run alternately in the same process against the same simulator
// (real HTTP on loopback, each answer delayed by LATENCY_MS as over a network); the figures are
// requests per run and the median wall time of ROUNDS runs each, with their ratios.
//   node bench/list-confirmation.mjs [--rounds 3] [--latency 20]
import { startSimulator } from '../test/simulator/server.mjs';
import { API_KEY, nodeReturnAll } from './return-all.mjs';

const arg = (name, fallback) => {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('rounds', 3);
const LATENCY_MS = arg('latency', 20);
const COUNT = 10_000;

const sim = await startSimulator({ count: COUNT, seed: 7, apiKey: API_KEY });
sim.settings.latencyMs = LATENCY_MS;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(confirm, maxParallelRequests) {
	sim.requests.length = 0;
	const began = performance.now();
	const items = await nodeReturnAll(sim.url, {
		maxParallelRequests,
		confirmListUnchanged: confirm,
	});
	const ms = performance.now() - began;
	if (items.length !== COUNT) throw new Error(`read ${items.length} items, expected ${COUNT}`);
	return { ms, requests: sim.requests.filter((r) => r.path === '/v1/mails').length };
}

console.log(
	`Return All of ${COUNT} mail items, ${LATENCY_MS} ms per answer, median of ${ROUNDS} runs each (baseline = the default, one read)`,
);
for (const maxParallelRequests of [1, 6]) {
	const runs = { off: [], on: [] };
	await measure(true, maxParallelRequests); // warm-up
	for (let round = 0; round < ROUNDS; round++) {
		runs.off.push(await measure(false, maxParallelRequests));
		runs.on.push(await measure(true, maxParallelRequests));
	}
	const off = {
		ms: median(runs.off.map((r) => r.ms)),
		requests: median(runs.off.map((r) => r.requests)),
	};
	const on = {
		ms: median(runs.on.map((r) => r.ms)),
		requests: median(runs.on.map((r) => r.requests)),
	};
	console.log(
		`Max Parallel Requests ${maxParallelRequests}: baseline ${off.requests} requests, ${Math.round(off.ms)} ms; confirmed ${on.requests} requests, ${Math.round(on.ms)} ms; ratio ${(on.requests / off.requests).toFixed(2)}x requests, ${(on.ms / off.ms).toFixed(2)}x time`,
	);
}
await sim.close();
