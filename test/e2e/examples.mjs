// The example workflows of examples/*.json, with the paths their triggers listen on.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

export function exampleWorkflows() {
	return fs
		.readdirSync(DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
			const trigger = workflow.nodes.find((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger');
			return { file, workflow, path: trigger ? `${trigger.webhookId}/webhook` : undefined, events: trigger?.parameters.events ?? [] };
		})
		;
}

/** The examples started by our webhook trigger (the others need a third-party service to run). */
export function triggeredExamples() {
	return exampleWorkflows().filter((w) => w.path);
}

/** What the examples need from n8n: where "save completed scans" may write, read through $env. */
export function examplesEnv(scansDir) {
	return { VMB_SCANS_DIR: scansDir, N8N_RESTRICT_FILE_ACCESS_TO: scansDir, N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false' };
}
