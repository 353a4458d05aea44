// The Poll Trigger's model checker in CI (poll-model.mjs): the built node through n8n-core's
// PollContext against the simulator, CI_SEEDS × CI_STEPS steps, every property after every step.
// A failure prints its seed, the shortest history found and the command that replays it.
// The checker itself is checked too: a plain reading of the contract passes it, and each of four
// readings with one rule broken fails it with that rule's property.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generate, runHistory, startModel } from './poll-model.mjs';
import { referencePoll } from './reference-trigger.mjs';
import { CI_SEEDS, CI_STEPS, checkSeed } from './run.mjs';

describe('the Poll Trigger against the model', () => {
	let model;
	beforeAll(async () => {
		model = await startModel();
	});
	afterAll(async () => await model?.close());

	for (const seed of CI_SEEDS) {
		test(`seed ${seed}: ${CI_STEPS} steps, every property after every step`, async () => {
			const lines = [];
			const result = await checkSeed(model, {
				seed,
				steps: CI_STEPS,
				shrinkMs: 30_000,
				out: (line) => lines.push(line),
			});
			console.log(lines.join('\n'));
			expect(result.ok, lines.join('\n')).toBe(true);
		});
	}

	// The written histories (test/model/histories: findings once made) pass step by step.
	const histories = new URL('./histories/', import.meta.url);
	for (const file of fs.readdirSync(histories).filter((name) => name.endsWith('.json'))) {
		test(`history ${file} passes`, async () => {
			const { seed, history } = JSON.parse(fs.readFileSync(new URL(file, histories), 'utf8'));
			const { violation, lines } = await runHistory(model, history, seed);
			expect(violation?.message, lines.join('\n')).toBeUndefined();
		});
	}
});

describe('the checker finds what breaks the guarantee', () => {
	const check = async (mutant, seed, steps) => {
		const model = await startModel({
			reference: (sim) => referencePoll({ baseUrl: sim.url, apiKey: sim.apiKey, mutant }),
		});
		try {
			return await runHistory(model, generate(seed, steps, { huge: false }), seed, {
				collect: true,
			});
		} finally {
			await model.close();
		}
	};

	test('a plain reading of the contract passes', async () => {
		const { found, violation } = await check(undefined, 3, 600);
		expect([...found, violation].filter(Boolean).map((v) => v.message)).toEqual([]);
	});

	// (seed, steps): a history that reaches the broken rule early.
	test.each([
		['no-lock', 1, 460, 'one-poll-in-flight'],
		['no-fingerprint', 3, 170, 'nothing-before-activation'],
		['newest-first', 3, 170, 'every-new-item'],
		['no-restore', 3, 190, 'every-completion'],
	])(
		'with the rule %s broken (seed %i, %i steps) it fails %s',
		async (mutant, seed, steps, property) => {
			const { found } = await check(mutant, seed, steps);
			expect(found.map((v) => v.property)).toContain(property);
		},
	);
});
