// `npm run dev`: the local simulator and real n8n (2.41.1 on Node 24) with this package loaded,
// an owner account, a credential pointing at the simulator and the example workflows (imported
// once each: n8n's data in the dev home is the user's from then on). The simulator subscribes
// every Virtual Mailbox Trigger n8n runs (published or listening for a test event) by itself
// (simulator/follow-triggers.mjs), and serves the mailroom page. The start waits for the triggers
// of what is published in n8n now, whatever the user published, unpublished or deleted.
// TypeScript rebuilds on save and n8n reloads the nodes. Ctrl-C stops everything it started.
// VMB_DEV_NO_BUILD=1 skips the build and the rebuilds on save (the tests, which build once).
// `npm run dev -- --queue`: the same in n8n's queue mode (test/queue/cluster.mjs: Postgres, Redis,
// a main, two workers, two webhook processes), with fresh data each time and no reload on save.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from './simulator/server.mjs';
import { followTriggers } from './simulator/follow-triggers.mjs';
import {
	devSimulatorOptions,
	credentialToImport,
	examplesToImport,
	followableLogging,
	publishedNotes,
	recordImported,
	triggersReady,
	workflowNameAt,
	workflowsInN8n,
} from './simulator/dev-session.mjs';
import { OWNER, restClient, startN8n, waitFor } from './e2e/real-n8n.mjs';
import { credentialFor } from './e2e/workflows.mjs';
import { DEV_SAMPLES, devWorkflows, examplesHome, UNPUBLISHED_IN_DEV } from './e2e/examples.mjs';
import { DEFAULT_RUNTIME, ensureRuntime } from './setup/n8n-runtime.mjs';
import { startCluster } from './queue/cluster.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOME =
	process.env.VMB_DEV_HOME ?? path.join(os.homedir(), '.cache', 'n8n-nodes-virtual-mailbox', 'dev');
const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const SIM_PORT = Number(process.env.SIM_PORT ?? 4010);
const say = (line) => process.stdout.write(`${line}\n`);
const QUEUE = process.argv.includes('--queue');
// A user's n8n is the pinned one: VMB_N8N picks the runtime of the test commands, not of this one.
process.env.VMB_N8N = DEFAULT_RUNTIME;

const stoppers = [];
let stopping = false;
async function stopAll(code = 0) {
	if (stopping) return;
	stopping = true;
	say('\nStopping…');
	for (const stop of stoppers.reverse()) await stop().catch(() => {});
	process.exit(code);
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
	const began = Date.now();
	// First run on a machine: installs the pinned n8n and its Node (about 4 minutes, with progress).
	const runtime = await ensureRuntime({ log: say });
	if (!process.env.VMB_DEV_NO_BUILD) {
		say('Building the package…');
		if (spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0)
			throw new Error('build failed');
		const watch = spawn(
			path.join(ROOT, 'node_modules', '.bin', 'tsc'),
			['-p', 'tsconfig.json', '--watch', '--preserveWatchOutput'],
			{ cwd: ROOT, stdio: 'ignore' },
		);
		stoppers.push(async () => watch.kill());
	}

	// A new session of the dev home: no mail or scan id an earlier run delivered to n8n comes again.
	const sim = await startSimulator({ port: SIM_PORT, ...devSimulatorOptions(HOME) });
	stoppers.push(() => sim.close());
	say(`Simulator: ${sim.url}`);

	const userFolder = path.join(HOME, 'n8n');
	// n8n's default security settings; its home (and so ~/.n8n-files, where the examples save scans) is HOME.
	const { env: examplesEnv, filesFolder: scansDir } = examplesHome(HOME);
	const n8nEnv = { ...examplesEnv, ...followableLogging(process.env, say) };
	const workflows = devWorkflows(scansDir);
	// Queue mode starts from fresh data: everything is imported, as the example files say.
	const plan = QUEUE ? { firstRun: true, workflows } : examplesToImport(userFolder, workflows);
	const firstRun = plan.firstRun;
	const credential = QUEUE || firstRun || credentialToImport(userFolder, sim.url);
	// n8n's output tells which triggers are active or listening; the simulator subscribes their URLs.
	// The mailroom lists each subscription by its workflow's name, read from n8n once it answers.
	let rest;
	const follower = followTriggers(sim.url, {
		onError: (error) => say(`Simulator could not follow a trigger: ${error.message}`),
		nameOf: async (url) => rest && workflowNameAt(await workflowsInN8n(rest), url),
	});
	const n8nLog = (line) => {
		follower.line(line);
		if (process.env.VMB_DEV_VERBOSE) say(line);
	};
	let cluster;
	if (QUEUE) {
		say(
			'Starting PostgreSQL, Redis and n8n in queue mode (a main, two workers, two webhook processes)…',
		);
		cluster = await startCluster({
			mainPort: N8N_PORT,
			env: n8nEnv,
			credentials: [credentialFor(sim)],
			workflows: workflows.map((w) => w.workflow),
			waitForWebhooks: workflows.filter((w) => w.path && w.workflow.active).map((w) => w.path),
			log: (line) =>
				line.startsWith('[main] ') ? n8nLog(line) : process.env.VMB_DEV_VERBOSE && say(line),
		});
		stoppers.push(() => cluster.stop());
	}
	if (!QUEUE)
		say(
			firstRun
				? 'Starting n8n and importing the example workflows (first run)…'
				: plan.workflows.length
					? `Starting n8n and importing the new example workflows (${plan.workflows.map((w) => `"${w.workflow.name}"`).join(', ')})…`
					: 'Starting n8n…',
		);
	const n8n =
		cluster?.main ??
		(await startN8n({
			userFolder,
			port: N8N_PORT,
			dev: true,
			credentials: credential ? [credentialFor(sim)] : [],
			workflows: plan.workflows.map((w) => w.workflow),
			env: n8nEnv,
			log: n8nLog,
		}));
	if (!QUEUE) {
		stoppers.push(() => n8n.stop());
		recordImported(userFolder, workflows, sim.url);
	}
	// What is published in n8n now (the user's data, not the example files): start once each of
	// its Virtual Mailbox Triggers is registered and subscribed by the simulator.
	rest = await restClient(n8n.base);
	const inN8n = await workflowsInN8n(rest);
	await triggersReady({
		n8n,
		simUrl: sim.url,
		published: inN8n.filter((w) => w.published),
		queue: QUEUE,
		say,
	});
	await follower.settled();
	// The subscriptions made before n8n's REST API answered get their workflow's name now.
	for (const { url } of await (await fetch(`${sim.url}/_control/webhooks`)).json()) {
		const name = workflowNameAt(inN8n, url);
		if (name)
			await fetch(`${sim.url}/_control/webhooks`, {
				method: 'PATCH',
				body: JSON.stringify({ url, name }),
			});
	}
	const publishedExample = (file) =>
		inN8n.some((w) => w.published && w.id === workflows.find((e) => e.file === file)?.workflow.id);
	n8n.child.once('exit', (code) => {
		if (!stopping) {
			say(`n8n exited (${code}).`);
			stopAll(1);
		}
	});
	say(`
n8n ${runtime.n8nVersion} is running with the Virtual Mailbox nodes:  ${n8n.base}   (ready in ${Math.round((Date.now() - began) / 1000)} s)
  login:     ${OWNER.email}
  password:  ${OWNER.password}
Local simulator of the API:                     ${sim.url}  (credential "Virtual Mailbox (local simulator)")
Saved scans go to:                              ${scansDir}${
		QUEUE
			? `
Queue mode: load balancer ${cluster.balancerBase} (WEBHOOK_URL: Production URLs to the webhook processes ${cluster.webhookBases.join(', ')}, Test URLs to the main); two workers; data in ${cluster.root} (removed at exit)`
			: ''
	}

Mailroom (log mail, request and complete scans, ship; the deliveries and their answers):
  ${sim.url}/mailroom
Every Virtual Mailbox Trigger n8n runs is subscribed by the simulator itself, for the events it
selects: a published workflow's at its Production URL, and one listening for a test event
("Execute workflow" or "Listen for test event") at its Test URL. Nothing to register: add the
trigger, pick the credential "Virtual Mailbox (local simulator)", listen, and log mail.
Make things happen (or use the mailroom page):
${DEV_SAMPLES.map((s) => `  ${s.needs.every(publishedExample) ? s.shows : s.what}:\n    curl -X POST ${sim.url}/_control/mail -d '${JSON.stringify(s.body)}'`).join('\n')}
  a scan completed (scan ids: the mailroom's Scans table, where "Request scan" makes one):
    curl -X POST ${sim.url}/_control/scans/<scan id>/status -d '{"status":"COMPLETED"}'
${publishedNotes(inN8n, workflows, UNPUBLISHED_IN_DEV).join('\n')}
${QUEUE ? 'Restart to load a rebuilt package.' : 'Rebuilds on save reload the nodes.'} Ctrl-C stops n8n and the simulator.`);
} catch (error) {
	say(`npm run dev failed: ${error.message}`);
	await stopAll(1);
}
