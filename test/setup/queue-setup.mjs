// Global setup of the queue-mode project: real n8n, PostgreSQL 17 and Redis are installed (or the
// run stops with the cause) before the first test starts. Instant when all of it is already there.
import { ensureRuntime } from './n8n-runtime.mjs';
import { ensurePostgres, ensureRedis } from './queue-services.mjs';

export default async function setup() {
	const log = (line) => process.stdout.write(`[queue setup] ${line}\n`);
	ensureRedis(log);
	await Promise.all([ensureRuntime({ log }), ensurePostgres({ log })]);
}
