// Installing a pinned npm tree outside the repository, safely: into `<dir>.partial-<pid>`, built and
// verified there, then renamed into place with a marker holding the fingerprint of its pinned
// files. A lock folder makes a second process wait instead of installing beside it; an interrupted
// install leaves only a partial folder, which the next run removes. Used by n8n-runtime.mjs and
// n8n-core-line.mjs.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where installs go: VMB_RUNTIME_CACHE, else ~/.cache/n8n-nodes-virtual-mailbox/runtimes. */
export const RUNTIME_CACHE =
	process.env.VMB_RUNTIME_CACHE ??
	path.join(os.homedir(), '.cache', 'n8n-nodes-virtual-mailbox', 'runtimes');
const MARKER = '.vmb-ready';
export const defaultLog = (line) => process.stderr.write(`${line}\n`);

/**
 * sha256 of the pinned files (package.json and package-lock.json) of `source`. A lock's `resolved`
 * URLs are left out: they say where npm fetches a tarball, not what it installs (`integrity` pins that).
 */
export function fingerprint(source) {
	const hash = crypto.createHash('sha256');
	hash.update(fs.readFileSync(path.join(source, 'package.json')));
	const lock = JSON.parse(fs.readFileSync(path.join(source, 'package-lock.json'), 'utf8'));
	for (const entry of Object.values(lock.packages ?? {})) delete entry.resolved;
	hash.update(`${JSON.stringify(lock, null, 2)}\n`);
	return hash.digest('hex');
}

/** True when `dir` holds a verified install of `source`'s current pinned files. */
export function installReady(dir, source) {
	const marker = path.join(dir, MARKER);
	return fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === fingerprint(source);
}

/**
 * npm's own configuration reaches child processes as npm_config_* variables (this repository's
 * ignore-scripts=true among them): none of it may shape an install.
 */
export function cleanEnv(extra = {}) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD') continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

/** Run a command, keep its output for the error message, print a heartbeat while it runs. */
export function run(command, args, { cwd, env, heartbeat, log = defaultLog }) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		const keep = (chunk) => {
			output = (output + chunk.toString()).slice(-20_000);
		};
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		const started = Date.now();
		const timer = heartbeat
			? setInterval(
					() => log(`  … ${heartbeat} (${Math.round((Date.now() - started) / 1000)} s)`),
					20_000,
				)
			: undefined;
		child.once('error', (error) => {
			clearInterval(timer);
			reject(error);
		});
		child.once('exit', (code, signal) => {
			clearInterval(timer);
			if (code === 0) resolve(output);
			else
				reject(
					new Error(
						`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output.trim().split('\n').slice(-40).join('\n')}`,
					),
				);
		});
	});
}

/** `npm install` of the pinned files in `dir`, scripts off, npm's environment left out. Returns the package count. */
export async function npmInstall(dir, log) {
	const output = await run(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--no-update-notifier',
			'--loglevel=error',
		],
		{
			cwd: dir,
			env: cleanEnv(),
			log,
			heartbeat: 'npm install',
		},
	);
	return /added ([\d,]+) packages?/.exec(output)?.[1] ?? '?';
}

/**
 * Install `source` (a folder with package.json and package-lock.json) into `dir` unless it is
 * ready: `build(partialDir)` installs and verifies inside the partial folder. Instant when ready.
 */
export async function installOnce({ source, dir, what, build, log = defaultLog }) {
	if (installReady(dir, source)) return;
	fs.mkdirSync(path.dirname(dir), { recursive: true });
	const release = await acquireLock(`${dir}.lock`, log);
	try {
		if (installReady(dir, source)) return; // another process finished it while this one waited
		const began = Date.now();
		const partial = `${dir}.partial-${process.pid}`;
		removeLeftovers(dir, log);
		fs.rmSync(partial, { recursive: true, force: true });
		fs.mkdirSync(partial, { recursive: true });
		for (const file of ['package.json', 'package-lock.json'])
			fs.copyFileSync(path.join(source, file), path.join(partial, file));
		try {
			await build(partial, () => `${Math.round((Date.now() - began) / 1000)} s`);
			fs.writeFileSync(path.join(partial, MARKER), fingerprint(source));
			// Swap into place: the old folder (another pinned version, or a broken install) goes aside first.
			const old = `${dir}.old-${process.pid}`;
			if (fs.existsSync(dir)) fs.renameSync(dir, old);
			fs.renameSync(partial, dir);
			fs.rmSync(old, { recursive: true, force: true });
			log(`${what} ready (${Math.round((Date.now() - began) / 1000)} s).`);
		} catch (error) {
			fs.rmSync(partial, { recursive: true, force: true });
			throw new Error(
				`Installing ${what} failed after ${Math.round((Date.now() - began) / 1000)} s: ${error.message}`,
			);
		}
	} finally {
		release();
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
	const base = path.basename(dir).replace(/\./g, '\\.');
	for (const entry of fs.readdirSync(path.dirname(dir))) {
		const match = new RegExp(`^${base}\\.(partial|old)-(\\d+)$`).exec(entry);
		if (match && !alive(Number(match[2]))) {
			log(`  removing an interrupted install (${entry})`);
			fs.rmSync(path.join(path.dirname(dir), entry), { recursive: true, force: true });
		}
	}
}

/** A lock folder holding the owner's pid; a lock whose owner is gone is taken over. */
export async function acquireLock(lock, log) {
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
		const orphan =
			Number.isNaN(owner) &&
			Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 60_000;
		if ((Number.isInteger(owner) && owner > 0 && !alive(owner)) || orphan) {
			fs.rmSync(lock, { recursive: true, force: true });
			continue;
		}
		if (!told)
			log(
				`Another process (pid ${owner}) is installing ${path.basename(lock, '.lock')}; waiting for it…`,
			);
		told = true;
		await new Promise((resolve) => setTimeout(resolve, 2000));
	}
}
