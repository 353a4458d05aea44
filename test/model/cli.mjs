// `npm run test:model [-- --steps N --seed S]`: the Poll Trigger's model checker (poll-model.mjs).
// Without --seed it runs the CI seeds; a failure prints its seed, the shrunk history and the
// command that replays it, and exits 1. `--history <file.json>` plays a written history
// ({ seed, history }, the steps as generate() makes them) and prints it step by step.
// VMB_PACKAGE_DIR=<folder> checks another build.
import fs from 'node:fs';
import { CI_SEEDS, CI_STEPS, checkSeed } from './run.mjs';
import { runHistory, startModel } from './poll-model.mjs';

const args = process.argv.slice(2);
const option = (name) => {
	const at = args.indexOf(`--${name}`);
	return at >= 0 ? Number(args[at + 1]) : undefined;
};
const steps = option('steps') ?? CI_STEPS;
const seeds = option('seed') !== undefined ? [option('seed')] : CI_SEEDS;
const shrinkMs = option('shrink-seconds') !== undefined ? option('shrink-seconds') * 1_000 : 60_000;

const model = await startModel();
const file = args.includes('--history') ? args[args.indexOf('--history') + 1] : undefined;
if (file) {
	const { seed, history } = JSON.parse(fs.readFileSync(file, 'utf8'));
	const { violation, lines } = await runHistory(model, history, seed);
	for (const line of lines) console.log(`    ${line}`);
	console.log(`[model] ${file}: ${violation ? `FAILED ${violation.message}` : 'ok'}`);
	await model.close();
	process.exit(violation ? 1 : 0);
}
let failed = 0;
try {
	for (const seed of seeds) {
		const result = await checkSeed(model, {
			seed,
			steps,
			shrinkMs,
			out: (line) => console.log(line),
		});
		if (!result.ok) failed++;
	}
} finally {
	await model.close();
}
process.exit(failed ? 1 : 0);
