// .ci/run as it is, with stand-in npm and node on its PATH: each step (the repository's install,
// lint, npm test, the registry installs, the compatibility table) passes or fails as told. Every
// failure fails the run with its own exit code, and every run removes its runtime folder (5 GB in
// a real run) however it ends.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ROOT_DIR } from '../../setup/paths.mjs';

const dirs = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const NPM = `#!/usr/bin/env bash
case "$*" in
  --version) echo 11.0.0 ;;
  "install --no-audit --no-fund") exit \${FAIL_NPM_INSTALL:-0} ;;
  "run lint") echo "lint ran"; exit \${FAIL_LINT:-0} ;;
  "test -- unit@n8n-1 e2e@n8n-1") echo "tests ran"; exit \${FAIL_TEST:-0} ;;
  "run compatibility") echo "compatibility ran"; exit \${FAIL_COMPATIBILITY:-0} ;;
  *) echo "unexpected: npm $*"; exit 99 ;;
esac
`;
const NODE = `#!/usr/bin/env bash
case "$1" in
  --version) echo v20.0.0 ;;
  test/setup/install-all.mjs) sleep \${INSTALLS_SECONDS:-0}; exit \${FAIL_INSTALLS:-0} ;;
  *) echo "unexpected: node $*"; exit 99 ;;
esac
`;

/** One .ci/run; `env` says which steps fail. Resolves once its folder is removed, or a second after. */
async function ciRun(env = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-ci-run-'));
	dirs.push(dir);
	for (const sub of ['repo/.ci', 'bin', 'tmp'])
		fs.mkdirSync(path.join(dir, sub), { recursive: true });
	fs.copyFileSync(path.join(ROOT_DIR, '.ci/run'), path.join(dir, 'repo/.ci/run'));
	fs.writeFileSync(path.join(dir, 'bin/npm'), NPM, { mode: 0o755 });
	fs.writeFileSync(path.join(dir, 'bin/node'), NODE, { mode: 0o755 });
	const run = spawnSync('bash', ['.ci/run'], {
		cwd: path.join(dir, 'repo'),
		encoding: 'utf8',
		env: {
			...process.env,
			PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`,
			TMPDIR: path.join(dir, 'tmp'),
			...env,
		},
	});
	// The folder goes in the background once the result is known: a second at most here.
	const foldersLeft = () => fs.readdirSync(path.join(dir, 'tmp'));
	for (let waited = 0; foldersLeft().length && waited < 1_000; waited += 50)
		await new Promise((resolve) => setTimeout(resolve, 50));
	return { status: run.status, output: run.stdout + run.stderr, foldersLeft: foldersLeft() };
}

test('a run whose every step passes passes, and removes its runtime folder', async () => {
	const run = await ciRun();
	expect(run.status).toBe(0);
	expect(run.output).toContain('compatibility ran');
	expect(run.foldersLeft).toEqual([]);
});

test.each([
	['the tests fail', { FAIL_TEST: '3' }, 3],
	['lint fails', { FAIL_LINT: '1' }, 1],
	['lint and the tests fail', { FAIL_LINT: '1', FAIL_TEST: '3' }, 1],
	['the registry installs fail', { FAIL_INSTALLS: '1' }, 1],
	['the compatibility table fails', { FAIL_COMPATIBILITY: '1' }, 1],
	[
		'the tests fail while the registry installs still run',
		{ FAIL_TEST: '3', INSTALLS_SECONDS: '5' },
		3,
	],
])(
	'when %s, the run fails with that exit code and removes its runtime folder',
	async (_, env, code) => {
		const run = await ciRun(env);
		expect(run.status).toBe(code);
		expect(run.foldersLeft).toEqual([]);
	},
);

test('a failed npm install fails the run before lint and tests', async () => {
	const run = await ciRun({ FAIL_NPM_INSTALL: '7' });
	expect(run.status).toBe(7);
	expect(run.output).not.toContain('lint ran');
	expect(run.output).not.toContain('tests ran');
	expect(run.foldersLeft).toEqual([]);
});
