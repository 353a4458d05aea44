// `npm run compatibility [-- --write]`: the table of n8n and Node versions the suite actually passed
// on, from the results each run leaves in test-artifacts/results/ (vitest's JSON reporter). CI
// prints it after its runs; --write puts it into the README between its compatibility markers.
import fs from 'node:fs';
import path from 'node:path';
import { describeRuntime } from './setup/n8n-runtime.mjs';
import { ROOT_DIR } from './setup/paths.mjs';

const RESULTS = path.join(ROOT_DIR, 'test-artifacts', 'results');
const pinned = (file, name) => JSON.parse(fs.readFileSync(path.join(ROOT_DIR, file), 'utf8'))[name];

/** One row per runtime and n8n-core line, from its results files (one per part of test/run.mjs). */
function rowOf(key, files) {
	const [runtimeName, coreLine] = key.split('+');
	const parts = files.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
	const listed = path.join(RESULTS, `${key}+parts.txt`);
	const missing = fs.existsSync(listed)
		? fs
				.readFileSync(listed, 'utf8')
				.split('\n')
				.filter((part) => part && !files.includes(path.join(RESULTS, `${key}+${part}.json`)))
		: [];
	const result = {
		success: missing.length === 0 && parts.every((part) => part.success),
		// A line none of whose parts wrote results dates from the run that listed them.
		startTime: parts.length
			? Math.min(...parts.map((part) => part.startTime))
			: fs.statSync(listed).mtimeMs,
		testResults: parts.flatMap((part) => part.testResults),
	};
	const runtime = describeRuntime(runtimeName);
	const core =
		coreLine === 'devDependencies'
			? pinned('package.json', 'devDependencies')['n8n-core']
			: pinned(`test/cores/${coreLine}/package.json`, 'dependencies')['n8n-core'];
	const count = (project) => {
		const files = result.testResults.filter((t) => t.name.includes(`/test/${project}/`));
		const tests = files.flatMap((t) => t.assertionResults);
		return {
			passed: tests.filter((t) => t.status === 'passed').length,
			failed: tests.filter((t) => t.status === 'failed').length,
			total: tests.length,
		};
	};
	const unit = count('unit');
	const e2e = count('e2e');
	const queue = count('queue');
	const ok =
		result.success &&
		unit.failed === 0 &&
		e2e.failed === 0 &&
		queue.failed === 0 &&
		unit.total > 0 &&
		e2e.total > 0;
	return {
		ok,
		line: `| n8n ${runtime.n8nVersion} | Node ${runtime.nodeVersion} | n8n-core ${core} on Node ${process.versions.node} | ${unit.passed}/${unit.total} | ${e2e.passed}/${e2e.total} | ${queue.total ? `${queue.passed}/${queue.total}` : 'not run'} | ${ok ? 'passed' : 'FAILED'} | ${new Date(result.startTime).toISOString().slice(0, 10)} |`,
	};
}

const byLine = new Map();
if (fs.existsSync(RESULTS))
	for (const file of fs
		.readdirSync(RESULTS)
		.filter((f) => f.endsWith('.json') || f.endsWith('+parts.txt'))
		.sort()) {
		const key = file
			.split('+')
			.slice(0, 2)
			.join('+')
			.replace(/\.json$/, '');
		// A line is in the table when a run listed its parts, even if none of them wrote results.
		const files = byLine.get(key) ?? [];
		byLine.set(key, file.endsWith('.json') ? [...files, path.join(RESULTS, file)] : files);
	}
if (byLine.size === 0) {
	console.error(
		'No results in test-artifacts/results: run npm test (and npm run test:n8n-1) first.',
	);
	process.exit(1);
}
const rows = [...byLine].reverse().map(([key, files]) => rowOf(key, files));
const table = [
	'| n8n (end-to-end) | its Node.js | unit tests through | unit | end-to-end | queue mode | result | run on |',
	'|---|---|---|---|---|---|---|---|',
	...rows.map((r) => r.line),
].join('\n');
console.log(table);
if (process.argv.includes('--write')) {
	const readme = path.join(ROOT_DIR, 'README.md');
	const text = fs.readFileSync(readme, 'utf8');
	const start = '<!-- compatibility:start -->';
	const end = '<!-- compatibility:end -->';
	if (!text.includes(start) || !text.includes(end))
		throw new Error('README.md has no compatibility markers');
	fs.writeFileSync(
		readme,
		`${text.slice(0, text.indexOf(start) + start.length)}\n${table}\n${text.slice(text.indexOf(end))}`,
	);
	console.log('README.md updated.');
}
process.exit(rows.every((r) => r.ok) ? 0 : 1);
