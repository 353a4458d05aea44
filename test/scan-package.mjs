// The community-package scanner's own rules (@n8n/scan-community-package), run locally on the
// source and on the packed tarball, as the scanner does after publishing: no published version,
// no provenance, no network. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the build and the tarball are made from (tsconfig.json, gulpfile.js, package.json "files"). */
const PUBLISHED_FROM = [
	'package.json',
	'index.js',
	'README.md',
	'LICENSE',
	'tsconfig.json',
	'gulpfile.js',
	'nodes',
	'credentials',
	'icons',
];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-scan-'));
try {
	// Scan what would be published: built now from a copy of the sources, so a missing or stale dist
	// cannot pass unnoticed, and this tree's dist (the tests may be loading it) stays as it is.
	const copy = path.join(work, 'source');
	for (const entry of PUBLISHED_FROM)
		fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
	execFileSync('npm', ['run', 'build'], { cwd: copy, stdio: ['ignore', 'ignore', 'inherit'] });
	const [pack] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
			cwd: copy,
			stdio: ['ignore', 'pipe', 'ignore'],
		}).toString(),
	);
	execFileSync('tar', ['xzf', path.join(work, pack.filename), '-C', work]);
	const unpacked = path.join(work, 'package');
	const shipped = pack.files.map((f) => f.path);
	const stray = shipped.filter(
		(f) => !/^(dist\/.*\.(js|json|svg)|package\.json|index\.js|README\.md|LICENSE)$/.test(f),
	);
	const results = [
		['source', await analyzePackage(ROOT, SOURCE_FILE_PATTERNS)],
		[
			`tarball ${pack.filename} (${shipped.length} files, ${(pack.size / 1024).toFixed(1)} KB)`,
			await analyzePackage(unpacked, ['**/*.js', 'package.json']),
		],
	];
	const { n8n } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const missing = [...n8n.nodes, ...n8n.credentials].filter((entry) => !shipped.includes(entry));
	let failed = stray.length > 0 || missing.length > 0;
	if (stray.length) console.log(`✗ tarball ships files n8n does not load: ${stray.join(', ')}`);
	if (missing.length)
		console.log(`✗ tarball lacks files its package.json n8n block names: ${missing.join(', ')}`);
	for (const [what, result] of results) {
		console.log(
			`${result.passed ? '✓' : '✗'} scanner rules on the ${what}: ${result.passed ? 'clean' : result.message}`,
		);
		if (!result.passed) {
			failed = true;
			console.log(result.details);
		}
	}
	process.exitCode = failed ? 1 : 0;
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
