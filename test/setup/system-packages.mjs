// Real services the tests use come from Debian's packages (chromium for the editor check). Missing
// ones are installed with apt-get when this process may (root, as in CI); otherwise the run stops
// at once with one line that says what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

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
	if (process.getuid?.() !== 0 || !onPath('apt-get'))
		throw new Error(`${command} is missing: ${hint}`);
	const began = Date.now();
	log(`Installing Debian's ${debianPackage} (needed by the tests)…`);
	// Another apt-get may hold apt's lock for a while: wait for it.
	const apt = (args) =>
		execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
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
	const installed = onPath(command);
	if (!installed)
		throw new Error(`${debianPackage} installed, but ${command} is still not on PATH`);
	log(`  ${debianPackage} installed (${Math.round((Date.now() - began) / 1000)} s).`);
	return installed;
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
