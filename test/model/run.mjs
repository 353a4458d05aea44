// One seed of the model checker, as the CLI and the vitest test run it: play, and on a broken
// property shrink the history and print it with the seed and the command that replays it.
import { generate, runHistory, shrink } from './poll-model.mjs';

/** What CI runs (`npm test`, `npm run test:model` without arguments). */
// Odd seeds read with keyset cursors, even ones with offset cursors (generate); seed 8's burst past
// the API's 10,000-item depth lands while the query is New Mail without filters (step 53), so CI
// reads divided by filters.
export const CI_SEEDS = [1, 2, 3, 4, 5, 8];
export const CI_STEPS = 1_000;

export async function checkSeed(model, { seed, steps, shrinkMs = 60_000, out = console.log }) {
	const history = generate(seed, steps);
	const started = performance.now();
	const { violation, stats } = await runHistory(model, history, seed);
	const seconds = (performance.now() - started) / 1_000;
	const figures = `${steps} steps in ${seconds.toFixed(1)} s (${Math.round(steps / seconds)} steps/s; ${stats.polls} polls, ${stats.failedPolls} failed, ${stats.emitted} emitted, ${stats.requests ?? '?'} requests, up to ${stats.maxMails} mail items)`;
	if (!violation) {
		out(`[model] seed ${seed}: ok, ${figures}`);
		return { ok: true, seconds, stats };
	}
	out(`[model] seed ${seed}: FAILED ${violation.property} — ${violation.message}`);
	out(`[model] ${figures}; shrinking…`);
	const small = await shrink(model, history, seed, violation.property, { budgetMs: shrinkMs });
	const replay = await runHistory(model, small, seed);
	out(
		`[model] seed ${seed}: shortest history found: ${small.length} of ${history.length} steps; it fails with ${replay.violation?.message ?? '(no longer fails?)'}`,
	);
	for (const line of replay.lines) out(`    ${line}`);
	out(`[model] replay: npm run test:model -- --steps ${steps} --seed ${seed}`);
	return { ok: false, violation, small, replay, seconds, stats };
}
