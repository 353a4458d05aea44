// `npm test` and `npm run test:n8n-1` (after the build): `node test/run.mjs <project> ...` runs the
// named vitest projects. Those that need nothing installed (unit, model) run first, while what the
// others need installs in a child process (real n8n, Chromium, Postgres, Redis; instant once there),
// so a first run does not wait for the install before its first test. Those then run side by side,
// each line of their output prefixed with the project's name: queue mode spends most of its time
// waiting for n8n's poll minutes. Every project runs even when another failed; the exit code is
// that of the first failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
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

const run = (args, env = {}, prefix = '') =>
	new Promise((resolve) => {
		const child = spawn(process.execPath, args, {
			cwd: ROOT_DIR,
			stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
			env: { ...process.env, ...env },
		});
		if (prefix)
			for (const [from, to] of [
				[child.stdout, process.stdout],
				[child.stderr, process.stderr],
			])
				createInterface({ input: from }).on('line', (line) => to.write(`${prefix}${line}\n`));
		child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
	});

const began = Date.now();
const step = (what) =>
	console.log(`[npm test] ${what} at ${Math.round((Date.now() - began) / 1000)} s`);

/** One vitest run of `group`; its results go to their own file (vitest.config.mjs). */
function vitest(group, prefix) {
	step(`vitest ${group.join(', ')}`);
	const projectArgs = group.flatMap((project) => ['--project', project]);
	return run(
		[vitestBin, 'run', '--config', 'vitest.config.mjs', ...projectArgs],
		{ VMB_RESULTS_PART: group.join('+') },
		prefix,
	).then((code) => {
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
const parts = [first.join('+'), ...then].filter(Boolean);
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
} else if (then.length === 1) codes.push(await vitest(then));
else codes.push(...(await Promise.all(then.map((project) => vitest([project], `[${project}] `)))));
step('done');
process.exit(codes.find((code) => code !== 0) ?? 0);
