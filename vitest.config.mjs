import fs from 'node:fs';
import os from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/setup/sequencer.mjs';

// Which n8n this run tests (see test/runtimes and test/cores): the e2e runtime and the n8n-core line
// of the unit tests. test/run.mjs (npm test, npm run test:n8n-1) runs the projects in parts, each
// leaving its results in test-artifacts/results/ for `npm run compatibility`.
const runtime = process.env.VMB_N8N || 'n8n-2.41.1';
const coreLine = process.env.VMB_N8N_CORE || 'devDependencies';
const results = [runtime, coreLine, process.env.VMB_RESULTS_PART].join('+');

// The unit tests whose outcome n8n-core's own code decides (its parameter checks, HTTP helper,
// credential handling, webhook and poll contexts, deduplication store): `npm run test:n8n-1` runs
// these on n8n-core 1.x (VMB_TESTS=line); the rest test this package's own logic, which is the
// same on either line. docs/development.md, "Testing on n8n 1.x", says why each is here.
export const LINE_DEPENDENT_UNIT_TESTS = [
	'transport/errors',
	'action-node/list-search',
	'action-node/resource-locators',
	'shared/hardening',
	'transport/deadlines',
	'transport/hosts',
	'transport/pagination',
	'transport/concurrent-list',
	'credentials/credential',
	'credentials/rotation.saved-before-switch',
	'action-node/ai-example',
	'action-node/seams',
	'webhook-trigger/trigger',
	'webhook-trigger/claims',
	'webhook-trigger/catch-up',
	'webhook-trigger/seams',
	'webhook-trigger/test-and-production',
	'dev/samples.across-restarts',
	'poll-trigger/poll-trigger',
	'poll-trigger/seams',
	'poll-trigger/reactivated-while-polling',
].map((name) => `test/unit/${name}.test.mjs`);
// In real n8n, `npm run test:n8n-1` leaves out the files that test `npm run dev`: it always runs
// the pinned n8n 2.x (test/dev.mjs), so no user meets it on 1.x.
export const LINE_DEPENDENT_E2E_TESTS = [
	'n8n',
	'editor',
	'one-shape',
	'catch-up',
	'catch-up-interval',
	'test-and-production',
	'n8n-database',
].map((name) => `test/e2e/${name}.test.mjs`);
// A file moved or renamed must not drop out of the 1.x run unnoticed.
for (const file of [...LINE_DEPENDENT_UNIT_TESTS, ...LINE_DEPENDENT_E2E_TESTS])
	if (!fs.existsSync(new URL(file, import.meta.url)))
		throw new Error(`vitest.config.mjs: ${file} (a LINE_DEPENDENT list) does not exist`);
const line = process.env.VMB_TESTS === 'line';
const unitTests = line ? LINE_DEPENDENT_UNIT_TESTS : ['test/unit/**/*.test.mjs'];
const e2eTests = line ? LINE_DEPENDENT_E2E_TESTS : ['test/e2e/**/*.test.mjs'];

export default defineConfig({
	test: {
		// Forks live on from file to file: n8n-core and the built package load once per fork (seconds
		// each), not once per file. Each unit file still gets its own test modules (isolate, below)
		// and starts from a fresh process's state (test/setup/unit-process-state.mjs).
		pool: 'forks',
		poolOptions: { forks: { isolate: false } },
		// Both cores of a 2-core machine (vitest's default leaves one to its main process, idle here).
		maxWorkers: Math.max(2, os.availableParallelism() - 1),
		testTimeout: 30_000,
		hookTimeout: 120_000,
		sequence: { sequencer: LongestFirst },
		reporters: process.env.VMB_RESULTS_PART
			? ['default', ['json', { outputFile: `test-artifacts/results/${results}.json` }]]
			: ['default'],
		projects: [
			// With VMB_N8N_CORE, that n8n-core line is installed and given a copy of the build first.
			{
				extends: true,
				test: {
					name: 'unit',
					include: unitTests,
					globalSetup: ['test/setup/unit-setup.mjs'],
					setupFiles: ['test/setup/conformance-hooks.mjs', 'test/setup/unit-process-state.mjs'],
					poolOptions: { forks: { isolate: true } },
				},
			},
			// Real n8n and Chromium are installed (or the run stops with the cause) before any e2e test.
			// Two files at a time: much of a file's time is waiting (n8n's cron minutes, polls, starts),
			// and each process keeps its own shared n8n from file to file (test/e2e/shared-n8n.mjs).
			{
				extends: true,
				test: {
					name: 'e2e',
					include: e2eTests,
					globalSetup: ['test/setup/e2e-setup.mjs'],
					setupFiles: ['test/setup/conformance-hooks.mjs'],
					testTimeout: 300_000,
					pool: 'forks',
					poolOptions: { forks: { isolate: true } },
				},
			},
			// Queue mode (Postgres, Redis, main, two workers, two webhook processes). `npm test` runs it
			// beside the e2e project (test/run.mjs); a plain `vitest run` after the others. Its files run
			// in one process with one module cache (isolate off), so they share one cluster (cluster.mjs).
			{
				extends: true,
				test: {
					name: 'queue',
					include: ['test/queue/**/*.test.mjs'],
					globalSetup: ['test/setup/queue-setup.mjs'],
					setupFiles: ['test/setup/conformance-hooks.mjs'],
					testTimeout: 600_000,
					hookTimeout: 900_000,
					pool: 'forks',
					poolOptions: { forks: { singleFork: true, isolate: false } },
					sequence: { groupOrder: 1 },
				},
			},
			// The Poll Trigger's model checker (test/model): in-process and CPU-bound, after the unit tests.
			{
				extends: true,
				test: {
					name: 'model',
					include: ['test/model/**/*.test.mjs'],
					setupFiles: ['test/setup/conformance-hooks.mjs'],
					testTimeout: 300_000,
					pool: 'forks',
					poolOptions: { forks: { singleFork: true, isolate: true } },
					sequence: { groupOrder: 2 },
				},
			},
		],
	},
});
