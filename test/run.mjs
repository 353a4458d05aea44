// `npm test` and `npm run test:n8n-1` (after the build): `node test/run.mjs <project> ...` runs the
// named vitest projects. Those that need nothing installed (unit, model) run first, while what the
// others need installs in a child process (real n8n, Chromium, Postgres, Redis; instant once there),
// so a first run does not wait for the install before its first test. Those then run in one vitest
// run (queue mode after the end-to-end tests: side by side, a 2-core machine timed tests out).
// Every project runs even when another failed; the exit code is that of the first failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DEFAULT_RUNTIME } from './setup/n8n-runtime.mjs';
import { ROOT_DIR } from './setup/paths.mjs';

const INSTALLS = { e2e: ['runtime', 'chromium'], queue: ['runtime', 'postgres', 'redis'] };
const projects = process.argv.slice(2);
if (projects.length === 0) {
	console.error('usage: node test/run.mjs <vitest project> ...');
	process.exit(2);
}
const needs = [...new Set(projects.flatMap((project) => INSTALLS[project] ?? []))];
const vitestBin = path.join(
	path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
	'vitest.mjs',
);

const run = (args, env = {}) =>
	new Promise((resolve) => {
		const child = spawn(process.execPath, args, {
			cwd: ROOT_DIR,
			stdio: 'inherit',
			env: { ...process.env, ...env },
		});
		child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
	});

const began = Date.now();
const step = (what) =>
	console.log(`[npm test] ${what} at ${Math.round((Date.now() - began) / 1000)} s`);

/** One vitest run of `group`; its results go to their own file (vitest.config.mjs). */
function vitest(group) {
	step(`vitest ${group.join(', ')}`);
	const projectArgs = group.flatMap((project) => ['--project', project]);
	return run([vitestBin, 'run', '--config', 'vitest.config.mjs', ...projectArgs], {
		VMB_RESULTS_PART: group.join('+'),
	}).then((code) => {
		step(`vitest ${group.join(', ')} ended (${code === 0 ? 'passed' : 'failed'})`);
		return code;
	});
}

// The results of this line's previous run (`npm run compatibility` reads them) would mix with these.
const results = path.join(ROOT_DIR, 'test-artifacts', 'results');
const line = `${process.env.VMB_N8N || DEFAULT_RUNTIME}+${process.env.VMB_N8N_CORE || 'devDependencies'}`;
for (const file of fs.existsSync(results) ? fs.readdirSync(results) : [])
	if (file === `${line}.json` || file.startsWith(`${line}+`)) fs.rmSync(path.join(results, file));
const first = projects.filter((project) => !INSTALLS[project]);
const then = projects.filter((project) => INSTALLS[project]);
// The parts this run writes: one that never wrote its file (a vitest killed) fails the line there.
const parts = [first.join('+'), then.join('+')].filter(Boolean);
fs.mkdirSync(results, { recursive: true });
fs.writeFileSync(path.join(results, `${line}+parts.txt`), `${parts.join('\n')}\n`);

const installing =
	needs.length > 0
		? run(['test/setup/install-all.mjs', '--only', needs.join(',')]).then((code) => {
				step(`installing ${needs.join(', ')} ${code === 0 ? 'done' : 'failed'}`);
				return code;
			})
		: 0;
const codes = [];
if (first.length) codes.push(await vitest(first));
const installed = await installing;
if (installed !== 0) {
	console.error(`Installing ${needs.join(', ')} failed (above): ${then.join(', ')} not run.`);
	codes.push(installed);
} else if (then.length) codes.push(await vitest(then));
step('done');
process.exit(codes.find((code) => code !== 0) ?? 0);
