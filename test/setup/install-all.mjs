// `node test/setup/install-all.mjs` installs what the test commands install for themselves from the
// npm registry: PostgreSQL 17, the default n8n runtime (with sqlite3), then every other runtime and
// n8n-core line. It needs only Node and the registry, so CI starts it before the repository's own
// npm install; the tests' global setups then wait for each install in progress (one lock per
// install, atomic-install.mjs) instead of starting it. Debian's chromium and redis-server are left
// to `--only` (below) and the global setups; every apt-get run waits for the others
// (system-packages.mjs).
import { defaultLog } from './atomic-install.mjs';
import { CORE_LINES, ensureCoreLine } from './n8n-core-line.mjs';
import { DEFAULT_RUNTIME, ensureRuntime, RUNTIMES } from './n8n-runtime.mjs';
import { ensureChromium } from './system-packages.mjs';
import { ensureDatabaseTemplate } from '../e2e/real-n8n.mjs';
import { ensurePostgres, ensureRedis } from './queue-services.mjs';

const began = Date.now();
const log = (line) => defaultLog(`[${Math.round((Date.now() - began) / 1000)} s] ${line}`);
// `--only runtime,chromium,postgres,redis` (test/run.mjs): what one test run needs, for the runtime
// VMB_N8N names; the apt-get installs run one after another in this process.
/** A runtime, then the migrated database its n8n processes start from (made once, here). */
const runtimeReady = async (name) => {
	await ensureRuntime({ name, log });
	await ensureDatabaseTemplate({ runtime: name });
	log(`n8n database template of ${name ?? process.env.VMB_N8N ?? DEFAULT_RUNTIME} ready`);
};
const only = process.argv.includes('--only')
	? new Set(process.argv[process.argv.indexOf('--only') + 1].split(','))
	: undefined;
try {
	if (only) {
		const installs = [];
		if (only.has('runtime')) installs.push(runtimeReady());
		if (only.has('postgres')) installs.push(ensurePostgres({ log }));
		if (only.has('chromium')) ensureChromium(log);
		if (only.has('redis')) ensureRedis(log);
		await Promise.all(installs);
	} else {
		await Promise.all([runtimeReady(DEFAULT_RUNTIME), ensurePostgres({ log })]);
		// One npm install at a time after the first: each takes a core while it unpacks.
		for (const name of RUNTIMES.filter((r) => r !== DEFAULT_RUNTIME)) await runtimeReady(name);
		for (const name of CORE_LINES) await ensureCoreLine(name, { log });
	}
	log('everything installed');
} catch (error) {
	log(error.message);
	process.exit(1);
}
