// `npm run dev` keeps n8n's data in its home between runs (published workflows, their static data,
// n8n's deduplication store) but starts a fresh simulator each time. Each run is a new session of
// that home, counted in a file there, so the simulator's new mail and scan ids never repeat one an
// earlier run delivered (a repeat would be ignored as a copy of a delivery already handled). And
// the logging n8n needs for the simulator to follow its triggers, whatever the user has set.
import fs from 'node:fs';
import path from 'node:path';
import { exampleSamples } from '../e2e/examples.mjs';
import { waitFor } from '../e2e/real-n8n.mjs';

/** The simulator of `npm run dev`: the same seeded mailbox every run. */
export const DEV_SIMULATOR = { count: 500, seed: 42 };

/**
 * The options of this run's simulator in the dev home `home`: the next session of that home, with
 * the mail and scans the examples' pinned items describe (so Execute workflow on an example
 * touches only those).
 */
export function devSimulatorOptions(home) {
	const file = path.join(home, 'simulator-session');
	const last = fs.existsSync(file) ? Number.parseInt(fs.readFileSync(file, 'utf8'), 10) || 0 : 0;
	const session = last + 1;
	fs.mkdirSync(home, { recursive: true });
	fs.writeFileSync(file, `${session}\n`);
	return { ...DEV_SIMULATOR, session, samples: exampleSamples() };
}

/**
 * The logging settings n8n needs for the simulator to follow its triggers, given the user's `env`:
 * the trigger's lines are at info level on the console, so a quieter N8N_LOG_LEVEL or an
 * N8N_LOG_OUTPUT without console would hide them. Those are changed, and `say` tells the user.
 */
export function followableLogging(env, say) {
	const settings = { N8N_LOG_LEVEL: env.N8N_LOG_LEVEL === 'debug' ? 'debug' : 'info' };
	if (env.N8N_LOG_LEVEL && !['info', 'debug'].includes(env.N8N_LOG_LEVEL)) {
		say(
			`N8N_LOG_LEVEL=${env.N8N_LOG_LEVEL} would hide the lines the simulator follows the triggers by: n8n runs with info.`,
		);
	}
	const outputs = (env.N8N_LOG_OUTPUT ?? '')
		.split(',')
		.map((o) => o.trim())
		.filter(Boolean);
	if (outputs.length && !outputs.includes('console')) {
		settings.N8N_LOG_OUTPUT = [...outputs, 'console'].join(',');
		say(
			`N8N_LOG_OUTPUT=${env.N8N_LOG_OUTPUT} would hide the lines the simulator follows the triggers by: n8n runs with ${settings.N8N_LOG_OUTPUT}.`,
		);
	}
	return settings;
}

/**
 * n8n's data persists in the dev home, and the user owns it: the examples are imported once each
 * (the first start, or the first start after an example was added to examples/) and never again,
 * so a restart neither overwrites a user's edits nor brings back an example they deleted. The
 * file `.vmb-imported` in n8n's folder lists the example ids imported so far.
 */
const IMPORTED = '.vmb-imported';

/** The examples (devWorkflows) this start imports into n8n's folder `userFolder`, and whether it is the dev home's first. */
export function examplesToImport(userFolder, examples) {
	const file = path.join(userFolder, IMPORTED);
	if (!fs.existsSync(file)) return { firstRun: true, workflows: examples };
	let imported;
	try {
		imported = JSON.parse(fs.readFileSync(file, 'utf8')).examples;
	} catch {
		/* an older dev command's marker: a date */
	}
	// An older marker: every example there was then is in n8n (or was deleted by the user).
	if (!Array.isArray(imported)) return { firstRun: false, workflows: [] };
	return { firstRun: false, workflows: examples.filter((w) => !imported.includes(w.workflow.id)) };
}

/**
 * Whether this start imports the simulator's credential into `userFolder` again: the first start,
 * and any start whose simulator answers at another address (SIM_PORT) than the one the credential
 * was made for (or one the marker does not record), else every trigger would call the old address.
 */
export function credentialToImport(userFolder, simUrl) {
	try {
		return (
			JSON.parse(fs.readFileSync(path.join(userFolder, IMPORTED), 'utf8')).simulator !== simUrl
		);
	} catch {
		return true;
	}
}

/** Record the examples imported into `userFolder` (all of `examples` once this start is up) and the simulator's address the credential has. */
export function recordImported(userFolder, examples, simUrl) {
	fs.writeFileSync(
		path.join(userFolder, IMPORTED),
		`${JSON.stringify({ at: new Date().toISOString(), examples: examples.map((w) => w.workflow.id), simulator: simUrl })}\n`,
	);
}

const TRIGGER = 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger';

/**
 * Every workflow in n8n now, archived ones left out, from its REST API (`rest`: restClient of real-n8n.mjs):
 * {id, name, published, hooks, triggers: [{node, path, events}]}, the Virtual Mailbox Triggers of the version
 * n8n runs (the published one where n8n 2.x keeps it apart from the draft). What `npm run dev`
 * waits for and names in its banner: what is published now, not what the example files say.
 */
export async function workflowsInN8n(rest) {
	const listed = (await rest.call('GET', '/rest/workflows')).data;
	const summaries = Array.isArray(listed) ? listed : (listed?.data ?? listed?.results ?? []);
	const workflows = [];
	for (const { id } of summaries) {
		const { data: workflow } = await rest.call('GET', `/rest/workflows/${id}`);
		// The editor deletes by archiving (n8n lists archived ones too, and never publishes them).
		if (!workflow?.isArchived) workflows.push(workflowState(workflow));
	}
	return workflows;
}

/** Pure: one workflow as GET /rest/workflows/:id answers it → {id, name, published, triggers}. */
export function workflowState(workflow) {
	const published = Boolean(workflow.active || workflow.activeVersionId);
	const nodes = (published && workflow.activeVersion?.nodes) || workflow.nodes || [];
	const hooks = [...(workflow.nodes ?? []), ...(workflow.activeVersion?.nodes ?? [])]
		.filter((n) => n.type === TRIGGER && n.webhookId)
		.map((n) => n.webhookId);
	return {
		id: workflow.id,
		name: workflow.name,
		published,
		// Every trigger's webhook id, draft and published, for naming a Test URL's subscription too.
		hooks: [...new Set(hooks)],
		triggers: nodes
			.filter((n) => n.type === TRIGGER && !n.disabled && n.webhookId)
			.map((n) => ({
				node: n.name,
				path: `${n.webhookId}/webhook`,
				events: n.parameters?.events ?? [],
			})),
	};
}

/**
 * Pure: what the banner says about the workflows in n8n now (`workflows`: workflowsInN8n), given
 * the examples (devWorkflows) and the files of those imported unpublished (UNPUBLISHED_IN_DEV):
 * which published workflows the simulator delivers to, and for each such example the user has not
 * published, how to try it, in its name in n8n now (renamed, the new name; deleted, nothing).
 */
export function publishedNotes(workflows, examples, unpublishedFiles) {
	const byId = new Map(workflows.map((w) => [w.id, w]));
	const rulesId = examples.find((e) => e.file === 'file-mail-by-rules.json')?.workflow.id;
	const rules = byId.get(rulesId);
	const lines = [];
	const receiving = workflows.filter((w) => w.published && w.triggers.length);
	lines.push(
		receiving.length
			? `Published, with a Virtual Mailbox Trigger the simulator delivers to: ${receiving.map((w) => `"${w.name}"`).join(', ')}.`
			: 'No published workflow has a Virtual Mailbox Trigger: the simulator delivers only to one listening for a test event.',
	);
	for (const file of unpublishedFiles) {
		const example = byId.get(examples.find((e) => e.file === file)?.workflow.id);
		if (!example || example.published) continue;
		lines.push(
			rules?.published
				? `"${example.name}" is not published (it would file the same mail as the rules): publish it and unpublish "${rules.name}" to try it.`
				: `"${example.name}" is not published: publish it to try it.`,
		);
	}
	return lines;
}

/** Pure: the webhook id in a trigger's Production or Test URL (…/webhook[-test]/<id>/webhook). */
export const hookOfUrl = (url) => /\/webhook(?:-test)?\/([^/?#]+)\/webhook$/.exec(url)?.[1];

/** Pure: the name of the workflow (of `workflows`, workflowsInN8n) whose trigger listens at `url`. */
export const workflowNameAt = (workflows, url) =>
	workflows.find((w) => w.hooks.includes(hookOfUrl(url)))?.name;

/**
 * Wait until each Virtual Mailbox Trigger of the `published` workflows (workflowsInN8n) answers at
 * its Production URL on `n8n` ({base, child}) and the simulator at `simUrl` has subscribed it (from
 * n8n's log line). One that does not within `timeoutMs` is named by `say`, not fatal: the user may
 * have published a workflow whose trigger cannot start. n8n exiting meanwhile ends the start.
 */
export async function triggersReady({
	n8n,
	simUrl,
	published,
	queue = false,
	say,
	timeoutMs = 60_000,
}) {
	const deadline = Date.now() + timeoutMs;
	const exited = () => n8n.child.exitCode !== null || n8n.child.signalCode != null;
	const subscribed = async (hookPath) =>
		(await (await fetch(`${simUrl}/_control/webhooks`)).json()).some((s) =>
			s.url.endsWith(`/webhook/${hookPath}`),
		);
	const registered = async (hookPath) =>
		queue || // the cluster waited for its webhooks
		/not registered for GET/i.test(await (await fetch(`${n8n.base}/webhook/${hookPath}`)).text());
	for (const workflow of published)
		for (const trigger of workflow.triggers) {
			try {
				await waitFor(
					async () => (await registered(trigger.path)) && (await subscribed(trigger.path)),
					Math.max(deadline - Date.now(), 1_000),
					exited,
					`the trigger "${trigger.node}" of "${workflow.name}"`,
				);
			} catch (error) {
				if (exited()) throw new Error(`n8n exited while its triggers started (${error.message})`);
				say(
					`"${workflow.name}" is published, but its trigger "${trigger.node}" did not start within a minute (see n8n's Executions and the workflow's error).`,
				);
			}
		}
}
