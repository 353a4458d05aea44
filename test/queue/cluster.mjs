// n8n in queue mode, as users scale it, on loopback: PostgreSQL 17 and Redis (test/setup/
// queue-services.mjs), one main process (editor, REST, activation, poll triggers; production
// webhooks off), `n8n worker` processes (two unless asked) that run every production execution
// from the Redis queue, two `n8n webhook` processes that receive production webhooks, and the load
// balancer n8n's queue-mode docs put in front of them (WEBHOOK_URL): /webhook/ to the webhook
// processes in turn, everything else (Test URLs under /webhook-test/ included) to the main.
// Everything lives in one temporary folder, removed by stop(). The queue-mode test files share one
// cluster (sharedCluster), each loading its own credentials and workflows into it.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, startRedis } from '../setup/queue-services.mjs';
import { freePort, restClient, startN8n, waitFor } from '../e2e/real-n8n.mjs';
import { writeToDatabase } from '../e2e/n8n-database.mjs';

/** Workers a cluster gets unless startCluster is given `workers`. */
export const WORKERS = 2;
export const WEBHOOK_PROCESSES = 2;

/**
 * Start the whole cluster. `credentials` and `workflows` are written into its database before the
 * main process starts; `waitForWebhooks` are paths each webhook process must serve before this
 * resolves; `workers` is how many `n8n worker` processes run.
 */
export async function startCluster({
	credentials = [],
	workflows = [],
	waitForWebhooks = [],
	env = {},
	workers = WORKERS,
	mainPort,
	log: baseLog = () => {},
}) {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-queue-'));
	fs.chmodSync(root, 0o755); // PostgreSQL runs as nobody when this runs as root
	const postgres = await startPostgres({
		root: path.join(root, 'postgres'),
		port: await freePort(),
		log: baseLog,
	});
	const redis = await startRedis({ port: await freePort(), log: baseLog });
	const ports = { main: mainPort ?? (await freePort()), workers: [], webhooks: [] };
	for (let i = 0; i < workers; i++) ports.workers.push(await freePort());
	for (let i = 0; i < WEBHOOK_PROCESSES; i++) ports.webhooks.push(await freePort());
	ports.balancer = await freePort();
	const balancer = await startBalancer(ports.balancer, ports.main, ports.webhooks);
	const shared = {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: 'postgres',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		// Production webhooks reach only the webhook processes, through the load balancer.
		N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		WEBHOOK_URL: `http://127.0.0.1:${ports.balancer}/`,
		...env,
	};
	const folder = (name) => path.join(root, name);
	const served = new Set(waitForWebhooks);
	const listeners = new Set([baseLog]);
	const log = (line) => {
		for (const listener of listeners) listener(line);
	};
	const startWorker = (i) =>
		startN8n({
			userFolder: folder(`worker-${i + 1}`),
			port: ports.workers[i],
			command: 'worker',
			env: shared,
			log: (l) => log(`[worker ${i + 1}] ${l}`),
		});
	const startWebhook = (i) =>
		startN8n({
			userFolder: folder(`webhook-${i + 1}`),
			port: ports.webhooks[i],
			command: 'webhook',
			env: shared,
			waitForWebhooks: [...served],
			log: (l) => log(`[webhook ${i + 1}] ${l}`),
		});
	const cluster = {
		root,
		postgres,
		redis,
		/** The URL n8n shows for webhooks (WEBHOOK_URL): production to the webhook processes, tests to the main. */
		balancerBase: `http://127.0.0.1:${ports.balancer}`,
		main: undefined,
		workers: [],
		webhooks: [],
		/** Base URLs of the webhook processes (what a load balancer spreads deliveries over). */
		get webhookBases() {
			return this.webhooks.map((w) => w.base);
		},
		processes() {
			return [this.main, ...this.workers, ...this.webhooks].filter(Boolean);
		},
		/** Start every n8n process (the main first: it migrates the database and activates workflows). */
		async startN8nProcesses({ importData = false } = {}) {
			this.main = await startN8n({
				userFolder: folder('main'),
				port: ports.main,
				env: shared,
				log: (l) => log(`[main] ${l}`),
				...(importData ? { credentials, workflows } : {}),
			});
			const started = await Promise.all([
				...ports.workers.map((_, i) => startWorker(i)),
				...ports.webhooks.map((_, i) => startWebhook(i)),
			]);
			this.workers = started.slice(0, ports.workers.length);
			this.webhooks = started.slice(ports.workers.length);
		},
		/** Stop every n8n process (Postgres and Redis keep running). */
		async stopN8nProcesses() {
			await Promise.all(this.processes().map((p) => p.stop()));
			this.main = undefined;
			this.workers = [];
			this.webhooks = [];
		},
		/** Start or stop `n8n worker` processes (the last ones first) until `count` run. */
		async setWorkers(count) {
			while (this.workers.length > count) {
				ports.workers.pop();
				await this.workers.pop().stop();
			}
			const from = this.workers.length;
			while (ports.workers.length < count) ports.workers.push(await freePort());
			this.workers.push(
				...(await Promise.all(ports.workers.slice(from).map((_, i) => startWorker(from + i)))),
			);
		},
		/** Stop webhook process `index` (the load balancer then answers 502 on its turns). */
		async stopWebhook(index) {
			await this.webhooks[index].stop();
		},
		/** Start webhook process `index` again, once it serves every loaded webhook. */
		async startWebhook(index) {
			this.webhooks[index] = await startWebhook(index);
		},
		/**
		 * Write `credentials` and `workflows` into the running cluster's database and publish the
		 * active ones through the main's REST API, as a user does in the editor; resolves once every
		 * webhook process serves `waitForWebhooks`.
		 */
		async load({
			credentials: addCredentials = [],
			workflows: addWorkflows = [],
			waitForWebhooks: paths = [],
		}) {
			await writeToDatabase(this.main, { credentials: addCredentials, workflows: addWorkflows });
			const rest = await restClient(this.main.base);
			for (const workflow of addWorkflows.filter((w) => w.active)) {
				const { versionId } = (await rest.call('GET', `/rest/workflows/${workflow.id}`)).data;
				await rest.call('POST', `/rest/workflows/${workflow.id}/activate`, { versionId });
			}
			for (const p of paths) served.add(p);
			await Promise.all(this.webhooks.map((w) => servesAll(w, paths)));
		},
		/** Unpublish `workflows` (a file's, once it is done: its triggers stop polling its simulator). */
		async unload({ workflows: done = [], waitForWebhooks: paths = [] }) {
			for (const p of paths) served.delete(p);
			if (!this.main) return;
			const rest = await restClient(this.main.base);
			for (const workflow of done.filter((w) => w.active))
				await rest.call('POST', `/rest/workflows/${workflow.id}/deactivate`, {});
		},
		/** Call `listener` with each line every n8n process prints (`[main] …`, `[worker 1] …`); returns its removal. */
		onLine(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		async stop() {
			await this.stopN8nProcesses();
			balancer.closeAllConnections();
			await new Promise((resolve) => balancer.close(resolve));
			await redis.stop();
			await postgres.stop();
			fs.rmSync(root, { recursive: true, force: true });
		},
	};
	try {
		await cluster.startN8nProcesses({ importData: true });
	} catch (error) {
		await cluster.stop();
		throw error;
	}
	return cluster;
}

/** Resolves once `process` serves every one of `paths` (registered for POST, so a GET is refused by name). */
async function servesAll(process, paths) {
	for (const webhookPath of paths)
		await waitFor(
			async () =>
				/not registered for GET/i.test(
					await (await fetch(`${process.base}/webhook/${webhookPath}`)).text(),
				),
			60_000,
			() => process.child.exitCode !== null,
			`webhook ${webhookPath} on ${process.base}`,
		);
}

/**
 * Settings of the shared cluster: a dead worker's job is noticed after one stalled-job check, 10 s
 * instead of n8n's 30 s (with a 10 s lock, renewed every 5 s), so a fault test waits less.
 */
export const SHARED_ENV = {
	QUEUE_WORKER_LOCK_DURATION: '10000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
	QUEUE_WORKER_STALLED_INTERVAL: '10000',
};
let shared;
/**
 * The queue project's one cluster (two workers), started by the first file that asks and kept for
 * the next: the project runs its files one after another in one process with a shared module
 * cache (vitest.config.mjs). A file loads its own data (cluster.load), unloads it when done, and
 * leaves the cluster as it found it (two workers, both webhook processes running). It stops when
 * that process ends.
 */
export function sharedCluster() {
	shared ??= startCluster({
		env: SHARED_ENV,
		log: process.env.VMB_E2E_LOG ? (line) => process.stderr.write(`${line}\n`) : () => {},
	}).then((cluster) => {
		// vitest ends its worker with SIGTERM, which skips 'exit' handlers; every process of the
		// cluster runs in its own group, so it is killed here or it outlives the tests.
		process.once('SIGTERM', () => process.exit(143));
		process.once('exit', () => {
			for (const { child } of [...cluster.processes(), cluster.redis, cluster.postgres]) {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* already gone */
				}
			}
		});
		// Its folder is removed by the project's teardown (queue-setup.mjs), or stays in the
		// temporary folder when the cluster ran elsewhere.
		if (process.env.VMB_QUEUE_LEFTOVERS)
			fs.appendFileSync(
				process.env.VMB_QUEUE_LEFTOVERS,
				`${JSON.stringify({ pid: process.pid, root: cluster.root })}\n`,
			);
		return cluster;
	});
	return shared;
}

/** The load balancer: /webhook/… to the webhook processes in turn, every other path to the main. */
async function startBalancer(port, mainPort, webhookPorts) {
	let turn = 0;
	const server = http.createServer((req, res) => {
		const target = req.url.startsWith('/webhook/')
			? webhookPorts[turn++ % webhookPorts.length]
			: mainPort;
		const upstream = http.request(
			{ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', (error) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`load balancer: ${error.message}`);
		});
		req.pipe(upstream);
	});
	await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
	return server;
}
