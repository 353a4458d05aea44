// `npm test` and `npm run test:n8n-1` (after the build): `node test/run.mjs <part> ...` runs the
// named vitest projects; `<project>@<line>` runs a project on another n8n line (LINES), as
// `npm run test:n8n-1` does and CI beside `npm test`.
// - Parts that need nothing installed (unit, model) run first, side by side (the model checker keeps
//   one core busy for a minute and a half), while what the others need installs in a child process
//   (real n8n, Chromium, Postgres, Redis; instant once there), so a first run does not wait for the
//   install before its first test.
// - Then two streams run side by side, each line of their output prefixed with the part's name: the
//   e2e parts one after the other (each starts real n8n and Chromium two files at a time), and queue
//   mode followed by the other lines' unit tests. Queue mode spends most of its time waiting for
//   n8n's poll minutes; the lines' unit tests run there when there is a queue part, else first.
// Every part runs even when another failed; the exit code is that of the first failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { DEFAULT_RUNTIME } from './setup/n8n-runtime.mjs';
import { ROOT_DIR } from './setup/paths.mjs';

/** The other n8n lines a part can run on: their runtime, n8n-core line, and the tests that differ. */
const LINES = {
	'n8n-1': { VMB_N8N: 'n8n-1.123.81', VMB_N8N_CORE: 'n8n-core-1.122', VMB_TESTS: 'line' },
};
// A line's end-to-end files (vitest.config.mjs) run three at a time: its three long ones then start
// together, and one of them (catch-up-interval) mostly waits for n8n's cron minutes.
const LINE_E2E_WORKERS = 3;
const INSTALLS = { e2e: ['runtime', 'chromium'], queue: ['runtime', 'postgres', 'redis'] };
const parts = process.argv.slice(2).map((arg) => {
	const [project, line] = arg.split('@');
	if (line !== undefined && !LINES[line]) {
		console.error(`test/run.mjs: unknown line "${line}" in ${arg} (known: ${Object.keys(LINES)})`);
		process.exit(2);
	}
	const env = line ? LINES[line] : {};
	const key = `${env.VMB_N8N || process.env.VMB_N8N || DEFAULT_RUNTIME}+${env.VMB_N8N_CORE || process.env.VMB_N8N_CORE || 'devDependencies'}`;
	return { arg, project, line, env, key };
});
if (parts.length === 0) {
	console.error('usage: node test/run.mjs <vitest project>[@<line>] ...');
	process.exit(2);
}
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

/** One vitest run of `group` (parts of one line); its results go to their own file (vitest.config.mjs). */
function vitest(group, prefix) {
	const name = group.map((part) => part.arg).join(', ');
	step(`vitest ${name}`);
	const projectArgs = group.flatMap((part) => ['--project', part.project]);
	if (group[0].line && group[0].project === 'e2e')
		// Both bounds: with fewer at least, tinypool ended forks still running a file (vitest 3.2).
		projectArgs.push(
			'--minWorkers',
			String(LINE_E2E_WORKERS),
			'--maxWorkers',
			String(LINE_E2E_WORKERS),
		);
	return run(
		[vitestBin, 'run', '--config', 'vitest.config.mjs', ...projectArgs],
		{ ...group[0].env, VMB_RESULTS_PART: group.map((part) => part.project).join('+') },
		prefix,
	).then((code) => {
		step(`vitest ${name} ended (${code === 0 ? 'passed' : 'failed'})`);
		return code;
	});
}
/**
 * Runs the groups one after the other, each that needs installs once its line's are done (a line
 * whose installs failed has its parts not run); resolves with their exit codes.
 */
async function inTurn(groups, prefix) {
	const codes = [];
	for (const group of groups) {
		const installed = INSTALLS[group[0].project] ? await installs.get(group[0].line) : 0;
		codes.push(
			installed || (await vitest(group, prefix && `[${group.map((part) => part.arg).join('+')}] `)),
		);
	}
	return codes;
}
/** Runs the streams side by side, their output prefixed when there is more than one. */
async function sideBySide(streams) {
	const active = streams.filter((stream) => stream.length);
	if (active.length === 1) return await inTurn(active[0]);
	return (await Promise.all(active.map((stream) => inTurn(stream, true)))).flat();
}

const primary = parts.filter((part) => !part.line);
const queued = primary.some((part) => part.project === 'queue');
const lineUnits = parts.filter((part) => part.line && !INSTALLS[part.project]);
// Each stream is a list of vitest runs one after the other; the streams of a phase run side by side.
const first = primary.filter((part) => !INSTALLS[part.project]).map((part) => [[part]]);
if (!queued && lineUnits.length) (first[0] ??= []).push(...lineUnits.map((part) => [part]));
const primaryFirst = (a, b) => Number(Boolean(a.line)) - Number(Boolean(b.line));
const streams = [
	parts
		.filter((part) => part.project === 'e2e')
		.sort(primaryFirst)
		.map((part) => [part]),
	parts.filter((part) => part.project === 'queue').map((part) => [part]),
];
if (queued) streams[1].push(...lineUnits.map((part) => [part]));

// The results of a line's previous run (`npm run compatibility` reads them) would mix with these.
// Each line lists the parts this run writes: one that never wrote its file (a vitest killed) fails
// the line there.
const results = path.join(ROOT_DIR, 'test-artifacts', 'results');
fs.mkdirSync(results, { recursive: true });
for (const key of new Set(parts.map((part) => part.key))) {
	for (const file of fs.readdirSync(results))
		if (file === `${key}.json` || file.startsWith(`${key}+`)) fs.rmSync(path.join(results, file));
	const written = [...first.flat(), ...streams.flat()]
		.filter((group) => group[0].key === key)
		.map((group) => group.map((part) => part.project).join('+'));
	fs.writeFileSync(path.join(results, `${key}+parts.txt`), `${written.join('\n')}\n`);
}

// Each line's installs start now, in a child process of their own (a lock makes one wait for another
// process installing the same). Side by side, not one line after the other: in a cold CI run the
// other line's install then ends before the end-to-end tests start (1,357 s against 1,431).
const installs = new Map();
for (const line of new Set(parts.map((part) => part.line))) {
	const needs = [
		...new Set(
			parts.filter((part) => part.line === line).flatMap((part) => INSTALLS[part.project] ?? []),
		),
	];
	if (needs.length === 0) continue;
	const what = `${needs.join(', ')}${line ? ` for ${line}` : ''}`;
	installs.set(
		line,
		run(['test/setup/install-all.mjs', '--only', needs.join(',')], line ? LINES[line] : {}).then(
			(code) => {
				step(`installing ${what} ${code === 0 ? 'done' : 'failed'}`);
				if (code !== 0) console.error(`Installing ${what} failed (above): its parts not run.`);
				return code;
			},
		),
	);
}
const codes = await sideBySide(first);
codes.push(...(await sideBySide(streams)));
step('done');
process.exit(codes.find((code) => code !== 0) ?? 0);
