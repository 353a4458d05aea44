// This project's apt-get runs queue on one lock: the runtime's install may add Debian's SQLite
// library while a test's setup installs chromium, and a second `apt-get update` fails at once on
// apt's lists lock instead of waiting.
import { execFileSync, spawn } from 'node:child_process';
import { expect, test } from 'vitest';
import { APT_LOCK, aptCommand } from '../../setup/system-packages.mjs';

test('an apt-get run waits while another of this project holds the apt lock', async () => {
	const holder = spawn('flock', [APT_LOCK, 'sleep', '2'], { stdio: 'ignore' });
	await new Promise((resolve) => setTimeout(resolve, 300));
	const began = Date.now();
	const [command, args] = aptCommand(['--version']);
	const output = execFileSync(command, args, { encoding: 'utf8' });
	expect(output).toMatch(/^apt /);
	expect(Date.now() - began).toBeGreaterThan(1200);
	expect(args).toEqual(expect.arrayContaining(['-o', 'DPkg::Lock::Timeout=600']));
	await new Promise((resolve) => holder.once('exit', resolve));
});
