// `node test/setup/install-all.mjs` installs what the test commands install for themselves from the
// npm registry: PostgreSQL 17, the default n8n runtime (with sqlite3), then every other runtime and
// n8n-core line. It needs only Node and the registry, so CI starts it before the repository's own
// npm install; the tests' global setups then wait for each install in progress (one lock per
// install, atomic-install.mjs) instead of starting it. Debian's chromium and redis-server are left
// to those global setups: they install them while they wait for the runtime, and two apt-get runs
// at once would fail on apt's lock.
import { defaultLog } from './atomic-install.mjs';
import { CORE_LINES, ensureCoreLine } from './n8n-core-line.mjs';
import { DEFAULT_RUNTIME, ensureRuntime, RUNTIMES } from './n8n-runtime.mjs';
import { ensurePostgres } from './queue-services.mjs';

const began = Date.now();
const log = (line) => defaultLog(`[${Math.round((Date.now() - began) / 1000)} s] ${line}`);
try {
	await Promise.all([ensureRuntime({ name: DEFAULT_RUNTIME, log }), ensurePostgres({ log })]);
	// One npm install at a time after the first: each takes a core while it unpacks.
	for (const name of RUNTIMES.filter((r) => r !== DEFAULT_RUNTIME))
		await ensureRuntime({ name, log });
	for (const name of CORE_LINES) await ensureCoreLine(name, { log });
	log('everything installed');
} catch (error) {
	log(error.message);
	process.exit(1);
}
