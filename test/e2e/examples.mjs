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
			const trigger = workflow.nodes.find(
				(n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
			);
			return {
				file,
				workflow,
				path: trigger ? `${trigger.webhookId}/webhook` : undefined,
				events: trigger?.parameters.events ?? [],
			};
		});
}

/** The examples started by our webhook trigger (the others need a third-party service to run). */
export function triggeredExamples() {
	return exampleWorkflows().filter((w) => w.path);
}

/**
 * Where n8n 2.x lets workflows read and write files by default: `~/.n8n-files` of the user running
 * n8n (N8N_RESTRICT_FILE_ACCESS_TO's default in @n8n/config's SecurityConfig; 1.x allows any folder
 * but n8n's own). The examples are written for n8n's Docker image, whose home is /home/node.
 */
export const EXAMPLES_FILES_FOLDER = '/home/node/.n8n-files';

/**
 * n8n's process environment for running the examples with n8n's default security settings: only
 * HOME, so that `~/.n8n-files` is a folder of the test's own (created here, as the sticky note of
 * "save completed scans" asks). No N8N_* override.
 */
export function examplesHome(home) {
	const filesFolder = path.join(home, '.n8n-files');
	fs.mkdirSync(filesFolder, { recursive: true });
	return { env: { HOME: home }, filesFolder };
}

/** An example as a user sets it up following its sticky note: the files folder of their n8n. */
export function setUpExample(workflow, filesFolder) {
	return JSON.parse(JSON.stringify(workflow).replaceAll(EXAMPLES_FILES_FOLDER, filesFolder));
}

/**
 * "File new mail by sender", "branch mail by rules (Switch)" and "file mail by rules" would all
 * file each new mail item, so `npm run dev` imports the first two unpublished (the user publishes
 * one, and unpublishes "file mail by rules", to try it): every published example is then
 * subscribed and does what it shows.
 */
export const UNPUBLISHED_IN_DEV = [
	'file-new-mail-by-sender.json',
	'branch-mail-by-rules-with-switch.json',
];

/** The examples as `npm run dev` imports them. */
export function devWorkflows(filesFolder) {
	return exampleWorkflows().map((w) => ({
		...w,
		workflow: {
			...setUpExample(w.workflow, filesFolder),
			...(UNPUBLISHED_IN_DEV.includes(w.file) ? { active: false } : {}),
		},
	}));
}

/**
 * The mail `npm run dev` suggests logging, and what each shows while the examples of `needs` are
 * published (else the banner names only `what`: the user decides what runs now).
 */
export const DEV_SAMPLES = [
	{
		what: 'a package',
		shows: 'a package: filed in Packages, and the package alert runs',
		needs: ['file-mail-by-rules.json', 'package-arrived-alert.json'],
		body: { sender_name: 'Amazon', mail_type: 'package' },
	},
	{
		what: 'a bank letter',
		shows: 'a bank letter: filed in Banks and marked read',
		needs: ['file-mail-by-rules.json'],
		body: { sender_name: 'Chase Bank', mail_type: 'letter' },
	},
];

/**
 * The mail and scans the examples' pinned sample items describe, as `npm run dev`'s simulator holds
 * them (startSimulator's `samples`): Execute workflow on an example runs on these, never on other
 * simulator mail. Their ids (90001…) lie below every id the simulator makes (seeded from 100001,
 * a session's own above those), so one pinned id names the same mail item in every session.
 */
export function exampleSamples() {
	const mails = new Map();
	const scans = new Map();
	const add = (map, id, record, file) => {
		const known = map.get(id);
		if (known && JSON.stringify(known) !== JSON.stringify(record))
			throw new Error(`${file}: pinned id ${id} describes another item than another example's`);
		map.set(id, record);
	};
	for (const { file, workflow } of exampleWorkflows())
		for (const { json } of Object.values(workflow.pinData ?? {}).flat()) {
			if (json.event === 'new-mail')
				add(
					mails,
					json.id,
					{
						id: json.id,
						sender_name: json.sender_name,
						recipient_name: json.recipient_name,
						mail_type: json.mail_type,
						mail_status: json.mail_status,
						weight: json.weight,
						measurement: json.measurement,
					},
					file,
				);
			else if (json.event === 'scan-update' || json.event === 'open-update')
				add(
					scans,
					json.id,
					{
						id: json.id,
						mail_id: json.mail_id,
						type: json.type,
						status: json.status,
						label: json.label ?? null,
						summary: json.summary ?? null,
					},
					file,
				);
		}
	return { mails: [...mails.values()], scans: [...scans.values()] };
}
