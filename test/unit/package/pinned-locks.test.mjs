// The pinned installs (the repository's own lock, each n8n runtime, n8n-core line and service) name
// every tarball's URL: a lock without `resolved` makes npm fetch each package's metadata from the
// registry before its tarball (2,290 extra requests for n8n 2.41.1). Measured cold on the 2-core
// machine: the n8n-core 1.x line installed in 68 s with the URLs, 117 s without.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { fingerprint } from '../../setup/atomic-install.mjs';
import { ROOT_DIR } from '../../setup/paths.mjs';

const locks = [
	'package-lock.json',
	...['runtimes', 'cores', 'services'].flatMap((kind) =>
		fs
			.readdirSync(path.join(ROOT_DIR, 'test', kind))
			.map((name) => path.join('test', kind, name, 'package-lock.json')),
	),
];

test.each(locks)('%s names the registry tarball of every package it pins', (file) => {
	const lock = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, file), 'utf8'));
	const wrong = [];
	for (const [key, entry] of Object.entries(lock.packages)) {
		if (!key || entry.link) continue;
		const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
		const url = `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
		if (entry.resolved !== url || !entry.integrity)
			wrong.push(`${key}: ${entry.resolved ?? 'no resolved'}`);
	}
	expect(wrong, 'add them: node test/setup/lock-urls.mjs <package-lock.json>').toEqual([]);
});

test('every n8n runtime locks the sqlite3 that test/services/sqlite3 builds once for all of them', () => {
	const version = (folder) =>
		JSON.parse(fs.readFileSync(path.join(ROOT_DIR, folder, 'package-lock.json'), 'utf8')).packages[
			'node_modules/sqlite3'
		]?.version;
	const built = version('test/services/sqlite3');
	expect(built).toMatch(/^\d+\.\d+\.\d+$/);
	for (const runtime of fs.readdirSync(path.join(ROOT_DIR, 'test', 'runtimes')))
		expect(version(path.join('test', 'runtimes', runtime)), runtime).toBe(built);
});

test('an install stays ready when its lock gains or loses tarball URLs (integrity pins what is installed)', () => {
	const source = path.join(ROOT_DIR, 'test', 'runtimes', 'n8n-2.41.1');
	const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-lock-'));
	try {
		fs.copyFileSync(path.join(source, 'package.json'), path.join(copy, 'package.json'));
		const lock = JSON.parse(fs.readFileSync(path.join(source, 'package-lock.json'), 'utf8'));
		for (const entry of Object.values(lock.packages)) delete entry.resolved;
		fs.writeFileSync(path.join(copy, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
		expect(fingerprint(copy)).toBe(fingerprint(source));
		lock.packages['node_modules/n8n'].integrity = 'sha512-another';
		fs.writeFileSync(path.join(copy, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
		expect(fingerprint(copy)).not.toBe(fingerprint(source));
	} finally {
		fs.rmSync(copy, { recursive: true, force: true });
	}
});
