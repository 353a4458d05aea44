// test/run.mjs and test/compatibility.mjs as they are, in a copy of the repository's layout where
// vitest and test/setup/install-all.mjs are stand-ins: each records what it was asked, in order,
// and fails, or ends without writing its results, when told. What holds here: which parts of
// `npm test -- unit@n8n-1 e2e@n8n-1` run, on which line and in what order, and that no part's
// failure can leave the compatibility table passing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ROOT_DIR } from '../../setup/paths.mjs';

const CI_PARTS = ['unit', 'model', 'e2e', 'queue', 'unit@n8n-1', 'e2e@n8n-1'];
const roots = [];
afterEach(() => {
	for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A repository with the real scripts and stand-in vitest and installs. */
function fakeRepository() {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-test-parts-'));
	roots.push(root);
	const write = (file, text) => {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), text);
	};
	for (const file of ['test/run.mjs', 'test/compatibility.mjs', 'test/setup/paths.mjs'])
		write(file, fs.readFileSync(path.join(ROOT_DIR, file), 'utf8'));
	write(
		'test/setup/n8n-runtime.mjs',
		`export const DEFAULT_RUNTIME = 'n8n-2.41.1';
export const describeRuntime = (name) => ({ n8nVersion: name.slice(4), nodeVersion: '22.0.0' });`,
	);
	write('package.json', '{"devDependencies":{"n8n-core":"2.41.1"}}');
	write('test/cores/n8n-core-1.122/package.json', '{"dependencies":{"n8n-core":"1.122.0"}}');
	// The line's name (n8n-1, or none) as run.mjs gives it through VMB_N8N.
	const lineOf = `const line = process.env.VMB_N8N === 'n8n-1.123.81' ? 'n8n-1' : '';`;
	write(
		'test/setup/install-all.mjs',
		`import fs from 'node:fs';
${lineOf}
fs.appendFileSync(process.env.FAKE_LOG, \`install\${line && '@' + line}\\n\`);
await new Promise((resolve) => setTimeout(resolve, 1000));
fs.appendFileSync(process.env.FAKE_LOG, \`installed\${line && '@' + line}\\n\`);
process.exit(process.env.FAKE_INSTALL_FAIL === line ? 1 : 0);`,
	);
	write('node_modules/vitest/package.json', '{"name":"vitest","version":"0.0.0"}');
	write(
		'node_modules/vitest/vitest.mjs',
		`import fs from 'node:fs';
${lineOf}
const args = process.argv.slice(2);
const projects = args.filter((arg, i) => args[i - 1] === '--project');
const parts = projects.map((project) => project + (line && '@' + line));
const told = (name) => parts.some((part) => (process.env[name] || '').split(',').includes(part));
fs.appendFileSync(process.env.FAKE_LOG, \`start \${parts.join('+')}\${args.includes('--minWorkers') ? ' ' + args.slice(args.indexOf('--minWorkers')).join(' ') : ''}\\n\`);
await new Promise((resolve) => setTimeout(resolve, 50));
const failed = told('FAKE_FAIL');
if (!told('FAKE_NO_RESULTS')) {
	const key = [process.env.VMB_N8N || 'n8n-2.41.1', process.env.VMB_N8N_CORE || 'devDependencies'];
	const testResults = projects.map((project) => ({
		name: \`\${process.cwd()}/test/\${project}/a.test.mjs\`,
		assertionResults: [{ status: failed ? 'failed' : 'passed' }],
	}));
	fs.mkdirSync('test-artifacts/results', { recursive: true });
	fs.writeFileSync(
		\`test-artifacts/results/\${[...key, process.env.VMB_RESULTS_PART].join('+')}.json\`,
		JSON.stringify({ success: !failed, startTime: Date.now(), testResults }),
	);
}
process.exit(failed || told('FAKE_NO_RESULTS') ? 1 : 0);`,
	);
	const run = (script, args, env = {}) => {
		const result = spawnSync(process.execPath, [script, ...args], {
			cwd: root,
			encoding: 'utf8',
			env: {
				...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^VMB_/.test(key))),
				FAKE_LOG: path.join(root, 'log'),
				...env,
			},
		});
		return { status: result.status, output: result.stdout + result.stderr };
	};
	return {
		root,
		tests: (args, env) => run('test/run.mjs', args, env),
		compatibility: () => run('test/compatibility.mjs', []),
		log: () =>
			fs.existsSync(path.join(root, 'log'))
				? fs.readFileSync(path.join(root, 'log'), 'utf8').trim().split('\n')
				: [],
	};
}

test('CI parts: every part runs once, on its line, and the table passes both lines', () => {
	const repo = fakeRepository();
	expect(repo.tests(CI_PARTS).status).toBe(0);
	const starts = repo.log().filter((line) => line.startsWith('start '));
	expect(starts.sort()).toEqual(
		[
			'start e2e',
			'start e2e@n8n-1 --minWorkers 3 --maxWorkers 3',
			'start model',
			'start queue',
			'start unit',
			'start unit@n8n-1',
		].sort(),
	);
	const table = repo.compatibility();
	expect(table.status).toBe(0);
	expect(table.output.match(/\| passed \|/g)).toHaveLength(2);
});

test('npm run test:n8n-1: the unit tests first, while the line installs, then the end-to-end files', () => {
	const repo = fakeRepository();
	expect(repo.tests(['unit@n8n-1', 'e2e@n8n-1']).status).toBe(0);
	const log = repo.log();
	expect(log.filter((line) => !line.startsWith('install@'))).toEqual([
		'start unit@n8n-1',
		'installed@n8n-1',
		'start e2e@n8n-1 --minWorkers 3 --maxWorkers 3',
	]);
	expect(log).toContain('install@n8n-1');
});

test('a part that fails without writing its results fails the run and its line in the table', () => {
	const repo = fakeRepository();
	expect(repo.tests(CI_PARTS, { FAKE_NO_RESULTS: 'e2e@n8n-1' }).status).not.toBe(0);
	const table = repo.compatibility();
	expect(table.status).toBe(1);
	expect(table.output).toMatch(/\| n8n 1\.123\.81 .*\| FAILED \|/);
	expect(table.output).toMatch(/\| n8n 2\.41\.1 .*\| passed \|/);
});

test('a line none of whose parts wrote results is in the table as failed, not left out of it', () => {
	const repo = fakeRepository();
	const run = repo.tests(CI_PARTS, { FAKE_NO_RESULTS: 'unit@n8n-1,e2e@n8n-1' });
	expect(run.status).not.toBe(0);
	const table = repo.compatibility();
	expect(table.output).toMatch(/\| n8n 1\.123\.81 .*\| FAILED \|/);
	expect(table.status).toBe(1);
});

test("one line's failed install leaves the other line's parts running", () => {
	const repo = fakeRepository();
	const run = repo.tests(CI_PARTS, { FAKE_INSTALL_FAIL: 'n8n-1' });
	expect(run.status).not.toBe(0);
	const starts = repo.log().filter((line) => line.startsWith('start '));
	expect(starts).toEqual(expect.arrayContaining(['start e2e', 'start queue']));
	expect(starts.some((line) => line.startsWith('start e2e@n8n-1'))).toBe(false);
});

test("the other line's end-to-end files run after these, its unit tests after queue mode", () => {
	const repo = fakeRepository();
	expect(repo.tests(CI_PARTS).status).toBe(0);
	const log = repo.log();
	expect(log.findIndex((line) => line.startsWith('start e2e@n8n-1'))).toBeGreaterThan(
		log.indexOf('start e2e'),
	);
	expect(log.indexOf('start unit@n8n-1')).toBeGreaterThan(log.indexOf('start queue'));
});
