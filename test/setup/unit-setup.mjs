// Global setup of the unit project. With VMB_N8N_CORE=<folder of test/cores>, the unit tests run
// on that n8n-core line: it is installed (once) and given a fresh copy of the built package.
import { ROOT_DIR } from './paths.mjs';
import { ensureCoreLine, stagePackage } from './n8n-core-line.mjs';

export default async function setup() {
	if (!process.env.VMB_N8N_CORE) return;
	const log = (line) => process.stdout.write(`[unit setup] ${line}\n`);
	const line = await ensureCoreLine(process.env.VMB_N8N_CORE, { log });
	stagePackage(line, ROOT_DIR);
	log(`unit tests run on ${line.name} (package copied to ${line.packageDir})`);
}
