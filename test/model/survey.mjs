// Every property a build breaks, over some seeds (the first violation of each, not shrunk):
// `node test/model/survey.mjs --steps N --seeds 1-20`. For the notes on a build's failures.
import { generate, runHistory, startModel } from './poll-model.mjs';
import { referencePoll } from './reference-trigger.mjs';

const args = process.argv.slice(2);
const value = (name, fallback) =>
	args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback;
const steps = Number(value('steps', 2_000));
const [from, to] = value('seeds', '1-10').split('-').map(Number);
// --reference [mutant]: check reference-trigger.mjs instead of the build (no bursts past the depth).
const reference = args.includes('--reference')
	? { mutant: value('reference', '') || undefined }
	: undefined;
const model = await startModel({
	reference:
		reference &&
		((sim) => referencePoll({ baseUrl: sim.url, apiKey: sim.apiKey, mutant: reference.mutant })),
});
const first = new Map();
for (let seed = from; seed <= (to ?? from); seed++) {
	const started = performance.now();
	const { found, stats, violation } = await runHistory(
		model,
		generate(seed, steps, { huge: !reference }),
		seed,
		{ collect: true },
	);
	if (violation) found.push(violation);
	const seconds = (performance.now() - started) / 1_000;
	console.log(
		`seed ${seed}: ${found.map((v) => `${v.property}@${v.step}`).join(', ') || 'ok'} (${seconds.toFixed(1)} s, ${stats.polls} polls)`,
	);
	for (const v of found)
		if (!first.has(v.property) || first.get(v.property).step > v.step)
			first.set(v.property, { ...v, seed, message: v.message });
}
console.log('\nfirst seen (seed, step):');
for (const [property, v] of first)
	console.log(`- ${property}: seed ${v.seed} step ${v.step}: ${v.message}`);
await model.close();
