// Global setup of the queue-mode project: real n8n, PostgreSQL 17 and Redis are installed (or the
// run stops with the cause) before the first test starts. Instant when all of it is already there.
// The teardown removes the folder of the files' shared cluster (test/queue/cluster.mjs) once the
// test process, whose exit kills the cluster's processes, has ended.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureRuntime } from './n8n-runtime.mjs';
import { ensurePostgres, ensureRedis } from './queue-services.mjs';

export default async function setup() {
	const log = (line) => process.stdout.write(`[queue setup] ${line}\n`);
	ensureRedis(log);
	await Promise.all([ensureRuntime({ log }), ensurePostgres({ log })]);
	const leftovers = path.join(os.tmpdir(), `vmb-queue-leftovers-${process.pid}`);
	process.env.VMB_QUEUE_LEFTOVERS = leftovers;
	// vitest runs this teardown before it ends the test process, whose exit kills the cluster: a
	// detached remover waits for that process to be gone, then removes the folder.
	return () => {
		if (!fs.existsSync(leftovers)) return;
		for (const line of fs.readFileSync(leftovers, 'utf8').split('\n').filter(Boolean)) {
			const { pid, root } = JSON.parse(line);
			spawn(
				'sh',
				[
					'-c',
					'while kill -0 "$0" 2>/dev/null; do sleep 0.2; done; sleep 1; rm -rf "$1"',
					String(pid),
					root,
				],
				{ detached: true, stdio: 'ignore' },
			).unref();
		}
		fs.rmSync(leftovers, { force: true });
	};
}
