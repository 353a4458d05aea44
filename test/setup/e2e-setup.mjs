// Global setup of the end-to-end project: everything real n8n (the runtime VMB_N8N names, 2.41.1
// by default) and the editor check need is installed (or the run stops with the cause) before the
// first e2e test starts, with progress a person can follow. Instant when all of it is already there.
import { ensureRuntime } from './n8n-runtime.mjs';
import { ensureChromium } from './system-packages.mjs';

export default async function setup(project) {
	const log = (line) => process.stdout.write(`[e2e setup] ${line}\n`);
	project.provide('chromiumPath', ensureChromium(log));
	await ensureRuntime({ log });
}
