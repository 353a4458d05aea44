// Start and drive one real n8n (a pinned runtime from test/runtimes, installed by
// test/setup/n8n-runtime.mjs) with this package loaded under its real type names. Used by the
// end-to-end tests, `npm run dev` and the benchmarks.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeRuntime, ensureRuntime } from '../setup/n8n-runtime.mjs';
import { acquireLock, RUNTIME_CACHE } from '../setup/atomic-install.mjs';
import { prepareDatabase, writeToDatabase } from './n8n-database.mjs';
import { ROOT_DIR as ROOT } from '../setup/paths.mjs';

const PACKAGE = 'n8n-nodes-virtual-mailbox';
export const OWNER = { email: 'owner@vmb.local', password: 'Simulator-Passw0rd!' };
/** The body n8n's sign-in form posts to /rest/login. */
const OWNER_LOGIN = { emailOrLdapLoginId: OWNER.email, password: OWNER.password };
/** require() from inside the runtime's own node_modules (bcryptjs, flatted ship with n8n). */
const runtimeRequire = (id, runtime = describeRuntime()) =>
	createRequire(path.join(runtime.dir, 'package.json'))(id);

// A port handed out here is free when asked, but the process it is for may bind it only later:
// never hand it out twice, or a cluster's worker and another process's task broker can meet on it.
const handedOut = new Set();
export async function freePort() {
	for (;;) {
		const port = await new Promise((resolve, reject) => {
			const server = net.createServer();
			server.unref();
			server.on('error', reject);
			server.listen(0, '127.0.0.1', () => {
				const { port: free } = server.address();
				server.close(() => resolve(free));
			});
		});
		if (!handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
}

/**
 * n8n's security settings that loosen (or tighten) its defaults: file access, env access in
 * expressions and Code, which nodes load, sandboxes. Taken out of the inherited environment, so that
 * "n8n's defaults" (the examples' tests) holds whatever the runner's shell has set; a test that
 * needs one passes it in `env`.
 */
const SECURITY_OVERRIDE =
	/^(N8N_RESTRICT_FILE_ACCESS_TO|N8N_BLOCK_[A-Z_]+|N8N_INSECURE_[A-Z_]+|N8N_SECURITY_[A-Z_]+|NODES_EXCLUDE|NODES_INCLUDE)$/;
const inheritedEnv = () =>
	Object.fromEntries(Object.entries(process.env).filter(([key]) => !SECURITY_OVERRIDE.test(key)));

/**
 * One output stream of a process read as lines: `data(chunk)` for each pipe read (a read can end
 * mid-line, so the unfinished line waits for the rest), `end()` when the stream ends. `log` gets
 * each whole line without its newline; `raw` gets every chunk as read.
 */
export function lineSplitter(log, raw = () => {}) {
	let pending = '';
	return {
		data(chunk) {
			const text = chunk.toString();
			raw(text);
			const lines = (pending + text).split('\n');
			pending = lines.pop();
			for (const line of lines) log(line.replace(/\r$/, ''));
		},
		end() {
			if (pending) log(pending);
			pending = '';
		},
	};
}

/** n8n's environment for one process of `runtime` in `userFolder`. */
function n8nEnv({
	runtime,
	userFolder,
	port,
	brokerPort,
	command = 'start',
	dev = false,
	extraEnv = {},
}) {
	const env = {
		...inheritedEnv(),
		PATH: `${path.dirname(runtime.node)}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		TMPDIR: path.join(userFolder, 'tmp'),
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		DB_TYPE: 'sqlite',
		N8N_ENCRYPTION_KEY: 'vmb-e2e-fixed-encryption-key-0001',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Ada',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Lovelace',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: runtimeRequire('bcryptjs', runtime).hashSync(
			OWNER.password,
			10,
		),
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_DEV_RELOAD: dev ? 'true' : 'false',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		// A worker answers only on its health server.
		...(command === 'worker'
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}
			: {}),
		...extraEnv,
	};
	// The test runner's own variables (NODE_ENV=test makes n8n exit at once, VITEST*, NODE_OPTIONS) stay out.
	for (const key of Object.keys(env))
		if (key === 'NODE_OPTIONS' || key === 'NODE_ENV' || key.startsWith('VITEST') || key === 'TEST')
			delete env[key];
	// n8n 1.x has no mcp-registry module (naming it stops the start) and ignores N8N_INSTANCE_OWNER_*:
	// its owner is set up through the REST API (startN8n).
	if (runtime.major < 2) delete env.N8N_DISABLED_MODULES;
	return env;
}

const TEMPLATES = path.join(RUNTIME_CACHE, 'database-templates');
/**
 * The migrated database a new user folder starts from (n8n-database.mjs), made now if it is not
 * there: the test setups make it once, before the first tests start n8n at the same moment.
 */
export async function ensureDatabaseTemplate({ runtime: name } = {}) {
	const runtime = describeRuntime(name);
	fs.mkdirSync(TEMPLATES, { recursive: true });
	// One process migrates; another asking meanwhile waits for it instead of migrating too.
	const release = await acquireLock(path.join(TEMPLATES, `${runtime.name}.lock`), () => {});
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-template-'));
	fs.mkdirSync(path.join(folder, 'tmp'));
	try {
		const env = n8nEnv({ runtime, userFolder: folder, port: 0, brokerPort: 0 });
		await prepareDatabase({ runtime, env }, TEMPLATES);
	} finally {
		fs.rmSync(folder, { recursive: true, force: true });
		release();
	}
}

/**
 * Prepare a user folder (package symlinked into .n8n/nodes/node_modules, credentials and workflows
 * written into its database) and start n8n: `command` is `start` (the main process), or in queue mode `worker` or
 * `webhook`. Resolves once the process answers on `port` (a worker's health server) and the listed
 * webhooks are registered.
 */
export async function startN8n({
	userFolder,
	port,
	command = 'start',
	credentials = [],
	workflows = [],
	waitForWebhooks = [],
	dev = false,
	env: extraEnv = {},
	nodeArgs = [],
	extraPackages = [],
	log = () => {},
	runtime: runtimeName,
}) {
	const runtime = await ensureRuntime({ name: runtimeName });
	const brokerPort = await freePort();
	fs.mkdirSync(path.join(userFolder, 'tmp'), { recursive: true });
	const modules = path.join(userFolder, '.n8n', 'nodes', 'node_modules');
	fs.mkdirSync(modules, { recursive: true });
	const link = path.join(modules, PACKAGE);
	fs.rmSync(link, { force: true, recursive: true });
	fs.symlinkSync(ROOT, link, 'dir');
	// Other local packages to load beside ours (the benchmark's baseline trigger).
	for (const dir of extraPackages) {
		const name = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name;
		fs.rmSync(path.join(modules, name), { force: true, recursive: true });
		fs.symlinkSync(dir, path.join(modules, name), 'dir');
	}
	const env = n8nEnv({ runtime, userFolder, port, brokerPort, command, dev, extraEnv });
	if (workflows.length) {
		// n8n saves no static data at all for a longer workflow id (isWorkflowIdValid: at most 21
		// characters in 2.x, 16 in 1.x; its own ids have 16), so a trigger's state would silently
		// never reach the database.
		const longest = runtime.major >= 2 ? 21 : 16;
		for (const w of workflows)
			if (String(w.id).length > longest)
				throw new Error(
					`workflow id ${w.id} is longer than ${longest} characters: n8n ${runtime.major}.x saves no static data for it`,
				);
	}
	if (credentials.length || workflows.length) {
		// Written as n8n's import and publish commands write them; the active ones take effect at
		// the start below, as after `n8n publish:workflow` (2.x) or `update:workflow --active` (1.x).
		await prepareDatabase({ runtime, env }, TEMPLATES);
		await writeToDatabase({ runtime, env }, { credentials, workflows, activate: true });
	}
	const output = [];
	// nodeArgs: flags for n8n's own Node process, such as --cpu-prof when profiling.
	const child = spawn(runtime.node, [...nodeArgs, runtime.n8n, command], {
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	for (const stream of [child.stdout, child.stderr]) {
		const reader = lineSplitter(log, (text) => {
			output.push(text);
			if (output.length > 2000) output.splice(0, 1000);
		});
		stream.setEncoding('utf8'); // a character split across reads stays whole
		stream.on('data', reader.data);
		stream.on('end', reader.end);
	}
	// n8n runs in its own process group (detached): if this process ends without stop(), take it along.
	const killOnExit = () => {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* already gone */
		}
	};
	process.once('exit', killOnExit);
	child.once('exit', () => process.removeListener('exit', killOnExit));
	const base = `http://127.0.0.1:${port}`;
	const instance = {
		base,
		runtime,
		env,
		child,
		output,
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {
				return;
			}
			const timer = setTimeout(() => {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* already gone */
				}
			}, 15_000);
			await exited;
			clearTimeout(timer);
		},
	};
	try {
		await waitFor(
			async () => (await fetch(`${base}/healthz/readiness`)).status === 200,
			120_000,
			() => child.exitCode !== null,
			`n8n ${command} readiness`,
		);
		if (command === 'start') {
			// n8n 1.x answers readiness before its REST routes exist, and makes its owner only through them.
			await waitFor(
				async () => (await fetch(`${base}/rest/settings`)).status === 200,
				60_000,
				() => child.exitCode !== null,
				'n8n REST API',
			);
			if (runtime.major < 2) await setUpOwner(base);
		}
		for (const webhookPath of waitForWebhooks) {
			await waitFor(
				async () => {
					// Registered for POST only: n8n then answers a GET with "not registered for GET". An
					// unknown path's 404 also names GET ("The requested webhook "GET …" is not registered").
					const text = await (await fetch(`${base}/webhook/${webhookPath}`)).text();
					return /not registered for GET/i.test(text);
				},
				60_000,
				() => child.exitCode !== null,
				`webhook ${webhookPath}`,
			);
		}
	} catch (error) {
		await instance.stop();
		throw new Error(`${error.message}\n--- n8n output ---\n${output.join('').slice(-6000)}`);
	}
	return instance;
}

/** n8n 1.x: the owner account through POST /rest/owner/setup (only before one exists). */
async function setUpOwner(base) {
	const response = await fetch(`${base}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			email: OWNER.email,
			firstName: 'Ada',
			lastName: 'Lovelace',
			password: OWNER.password,
		}),
	});
	// 400 once an owner exists (a restart of the same user folder).
	if (response.status !== 200 && response.status !== 400)
		throw new Error(
			`owner setup failed: ${response.status} ${(await response.text()).slice(0, 300)}`,
		);
}

/** n8n 2.41 unpublishes in the background and answers 409 "still being unpublished" until it has. */
export async function untilUnpublished(call) {
	for (let attempt = 0; ; attempt++) {
		try {
			return await call();
		} catch (error) {
			if (attempt >= 120 || !/still being unpublished/.test(error.message)) throw error;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
}

export async function waitFor(check, timeoutMs, gaveUp = () => false, what = 'condition') {
	const end = Date.now() + timeoutMs;
	while (Date.now() < end) {
		if (gaveUp()) throw new Error(`gave up waiting for ${what}: process exited`);
		try {
			if (await check()) return;
		} catch {
			/* not up yet */
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * Signs `page`'s browser in as the owner through the REST API the sign-in form posts to: the
 * editor then opens with one page load, not two (each costs Chromium 11-13 CPU seconds on 2 cores).
 */
export async function signIn(page, base) {
	const response = await page.request.post(`${base}/rest/login`, { data: OWNER_LOGIN });
	if (!response.ok())
		throw new Error(`login failed: ${response.status()} ${await response.text()}`);
}

/** A logged-in REST client of the instance (cookie auth), for executions. */
export async function restClient(base) {
	const login = await fetch(`${base}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER_LOGIN),
	});
	if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
	const cookie = login.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.join('; ');
	const flatted = runtimeRequire('flatted');
	const call = async (method, url, body) => {
		const response = await fetch(`${base}${url}`, {
			method,
			// A connection of its own: a kept-alive one n8n closes as it is reused (its 5 s idle
			// timeout against a client late under load) failed calls with "other side closed".
			headers: {
				cookie,
				'content-type': 'application/json',
				'browser-id': 'vmb-e2e',
				connection: 'close',
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		if (response.status >= 400)
			throw new Error(`${method} ${url} → ${response.status} ${text.slice(0, 500)}`);
		return text ? JSON.parse(text) : undefined;
	};
	return {
		call,
		async executions(workflowId) {
			const result = await call(
				'GET',
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}&limit=100`,
			);
			return result.data.results ?? result.data;
		},
		async execution(id) {
			const result = await call('GET', `/rest/executions/${id}`);
			const execution = result.data;
			return {
				...execution,
				data: typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data,
			};
		},
	};
}
