// n8n in queue mode, as users scale it, on loopback: PostgreSQL 17 and Redis (test/setup/
// queue-services.mjs), one main process (editor, REST, activation, poll triggers; production
// webhooks off), `n8n worker` processes (two unless asked) that run every production execution
// from the Redis queue, two `n8n webhook` processes that receive production webhooks, and the load
// balancer n8n's queue-mode docs put in front of them (WEBHOOK_URL): /webhook/ to the webhook
// processes in turn, everything else (Test URLs under /webhook-test/ included) to the main.
// Everything lives in one temporary folder, removed by stop().
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, startRedis } from '../setup/queue-services.mjs';
import { freePort, startN8n } from '../e2e/real-n8n.mjs';

/** Workers a cluster gets unless startCluster is given `workers`. */
export const WORKERS = 2;
export const WEBHOOK_PROCESSES = 2;

/**
 * Start the whole cluster. `credentials` and `workflows` are imported through the main process;
 * `waitForWebhooks` are paths each webhook process must serve before this resolves; `workers` is how
 * many `n8n worker` processes run.
 */
export async function startCluster({
	credentials = [],
	workflows = [],
	waitForWebhooks = [],
	env = {},
	workers = WORKERS,
	mainPort,
	log = () => {},
}) {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-queue-'));
	fs.chmodSync(root, 0o755); // PostgreSQL runs as nobody when this runs as root
	const postgres = await startPostgres({
		root: path.join(root, 'postgres'),
		port: await freePort(),
		log,
	});
	const redis = await startRedis({ port: await freePort(), log });
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
			const others = [
				...ports.workers.map((port, i) =>
					startN8n({
						userFolder: folder(`worker-${i + 1}`),
						port,
						command: 'worker',
						env: shared,
						log: (l) => log(`[worker ${i + 1}] ${l}`),
					}),
				),
				...ports.webhooks.map((port, i) =>
					startN8n({
						userFolder: folder(`webhook-${i + 1}`),
						port,
						command: 'webhook',
						env: shared,
						waitForWebhooks,
						log: (l) => log(`[webhook ${i + 1}] ${l}`),
					}),
				),
			];
			const started = await Promise.all(others);
			this.workers = started.slice(0, workers);
			this.webhooks = started.slice(workers);
		},
		/** Stop every n8n process (Postgres and Redis keep running). */
		async stopN8nProcesses() {
			await Promise.all(this.processes().map((p) => p.stop()));
			this.main = undefined;
			this.workers = [];
			this.webhooks = [];
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
