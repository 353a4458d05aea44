// Real services the tests use come from Debian's packages (chromium for the editor check, Redis for
// queue mode, the SQLite library sqlite3 links). Missing ones are installed with apt-get when this
// process may (root, as in CI); otherwise the run stops at once with one line that says what to
// install, or, for what has a fallback (SQLite: sqlite3's bundled copy), goes on without.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const defaultLog = (line) => process.stderr.write(`${line}\n`);
let aptUpdated = false;

function onPath(command) {
	return (
		spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim() ||
		undefined
	);
}

/**
 * The path of `command`: `override` (an environment variable's value) when given, else the
 * command on PATH, else installed from Debian package `debianPackage`.
 */
export function ensureDebianCommand({
	command,
	debianPackage,
	override,
	overrideName,
	log = defaultLog,
}) {
	if (override) {
		if (!fs.existsSync(override)) throw new Error(`${overrideName}=${override} does not exist`);
		return override;
	}
	const found = onPath(command);
	if (found) return found;
	const hint = `install Debian's ${debianPackage} (sudo apt-get install -y ${debianPackage})${overrideName ? ` or set ${overrideName} to its path` : ''}`;
	if (!mayUseApt()) throw new Error(`${command} is missing: ${hint}`);
	aptGetInstall(debianPackage, log);
	const installed = onPath(command);
	if (!installed)
		throw new Error(`${debianPackage} installed, but ${command} is still not on PATH`);
	return installed;
}

/**
 * True when `file` exists, else after installing Debian package `debianPackage` when this process
 * may; false (and one line saying why) when it cannot: for what has a fallback, never fatal.
 */
export function ensureDebianFile({ file, debianPackage, log = defaultLog }) {
	if (fs.existsSync(file)) return true;
	if (!mayUseApt()) return false;
	try {
		aptGetInstall(debianPackage, log);
	} catch (error) {
		log(`  ${error.message.split('\n')[0]}`);
		return false;
	}
	return fs.existsSync(file);
}

/** Where this project's apt-get runs queue, one at a time. */
export const APT_LOCK = path.join(os.tmpdir(), 'vmb-apt.lock');

/**
 * apt-get with `args`, after any other of this project's apt-get runs (the runtime's install may
 * want a library while a test's setup installs chromium: `apt-get update` fails at once on apt's
 * lists lock), then waiting for dpkg's lock, which apt-get can wait for itself.
 */
export function aptCommand(args) {
	return ['flock', ['-w', '900', APT_LOCK, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', ...args]];
}

const mayUseApt = () => process.getuid?.() === 0 && Boolean(onPath('apt-get'));

function aptGetInstall(debianPackage, log) {
	const began = Date.now();
	log(`Installing Debian's ${debianPackage} (needed by the tests)…`);
	const apt = (args) =>
		execFileSync(...aptCommand(args), {
			stdio: ['ignore', 'ignore', 'pipe'],
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			timeout: 15 * 60_000,
		});
	try {
		if (!aptUpdated) apt(['update', '-qq']);
		aptUpdated = true;
		apt(['install', '-y', '-qq', debianPackage]);
	} catch (error) {
		throw new Error(
			`apt-get could not install ${debianPackage}: ${(error.stderr?.toString() || error.message).trim().split('\n').slice(-5).join('\n')}`,
		);
	}
	log(`  ${debianPackage} installed (${Math.round((Date.now() - began) / 1000)} s).`);
}

/** Chromium for the editor check: CHROMIUM_PATH, else Debian's chromium. */
export const ensureChromium = (log) =>
	ensureDebianCommand({
		command: 'chromium',
		debianPackage: 'chromium',
		override: process.env.CHROMIUM_PATH,
		overrideName: 'CHROMIUM_PATH',
		log,
	});
