// Figure 1, memory: peak heap growth of a Return All against the bare loop, in a process of its own.
// node --expose-gc [--max-semi-space-size=1] bench/heap.mjs <simulator url>  → one JSON line.
// Peak heapUsed counts garbage the young generation has not collected yet: with V8's default
// semi-space (up to 16 MB) that alone is several MB, whatever the code does. Run with a 1 MB
// semi-space, the peak is what the code keeps alive plus at most about 1 MB of fresh garbage.
import { bareLoop, nodeReturnAll } from './return-all.mjs';

const url = process.argv[2];
if (!global.gc) throw new Error('run with --expose-gc');

async function peakHeap(fn) {
	global.gc();
	global.gc();
	const start = process.memoryUsage().heapUsed;
	let peak = start;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 1);
	const result = await fn();
	peak = Math.max(peak, process.memoryUsage().heapUsed);
	clearInterval(timer);
	global.gc();
	const retained = process.memoryUsage().heapUsed - start; // `result` still holds the items
	if (result.length !== 10_000) throw new Error(`got ${result.length} items`);
	return { peak: peak - start, retained };
}

const bytes = (await bareLoop(url)).bytes;
// Warm-up, so code loading and compilation are not counted as data.
for (let i = 0; i < 3; i++) {
	await bareLoop(url);
	await nodeReturnAll(url);
}
const runs = { bare: [], node: [] };
for (let i = 0; i < 3; i++) {
	runs.bare.push(await peakHeap(async () => (await bareLoop(url)).items));
	runs.node.push(await peakHeap(() => nodeReturnAll(url)));
}
const median = (list, key) => list.map((r) => r[key]).sort((a, b) => a - b)[1];
console.log(
	JSON.stringify({
		bytes,
		bare: { peak: median(runs.bare, 'peak'), retained: median(runs.bare, 'retained') },
		node: { peak: median(runs.node, 'peak'), retained: median(runs.node, 'retained') },
	}),
);
