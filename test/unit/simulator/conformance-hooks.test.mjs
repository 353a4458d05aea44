// The conformance setup (test/setup/conformance-hooks.mjs) reports every mismatch: one recorded
// after a file's last test (afterAll cleanup, an e2e poll landing late) fails the run, and every
// project that starts the simulator, the model checker's included, runs the setup.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import config from '../../../vitest.config.mjs';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('conformance mismatches that no test reports', () => {
	test('a mismatch recorded in afterAll fails the run', () => {
		const run = spawnSync(
			process.execPath,
			[
				path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
				'run',
				'--config',
				'test/unit/simulator/conformance-hooks-fixtures/vitest.fixture.config.mjs',
			],
			{
				cwd: ROOT,
				encoding: 'utf8',
				timeout: 120_000,
				env: { ...process.env, FORCE_COLOR: '0' },
			},
		);
		const output = `${run.stdout}\n${run.stderr}`;
		expect(output, 'the fixture ran').toMatch(/late-violation\.fixture\.mjs/);
		expect(run.status, `vitest exit code; output:\n${output.slice(-1500)}`).not.toBe(0);
	}, 150_000);

	test('every vitest project that starts the simulator runs the conformance setup (model included)', () => {
		const projects = config.test.projects.map((p) => p.test);
		const model = projects.find((p) => p.name === 'model');
		expect(model.setupFiles ?? [], 'model project setupFiles').toContain(
			'test/setup/conformance-hooks.mjs',
		);
	});
});
