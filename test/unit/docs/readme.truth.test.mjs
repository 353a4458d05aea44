// What the README tells people who install the package, checked against the package itself: its
// length and where "try it" is, the option, field, event and operation names it uses (as the
// node descriptions show them), the defaults it states, the example workflows it lists, the
// addresses `npm run dev` prints, the error text it quotes and the docs/ links it gives.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const lines = README.split('\n');
const section = (title) => {
	const start = lines.findIndex((l) => l.replace(/^#+\s*/, '') === title && l.startsWith('#'));
	expect(start, `README section "${title}"`).toBeGreaterThanOrEqual(0);
	const level = lines[start].match(/^#+/)[0].length;
	const end = lines.findIndex(
		(l, i) => i > start && /^#+\s/.test(l) && l.match(/^#+/)[0].length <= level,
	);
	return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
};
const bold = (text) => [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1].replace(/\s+/g, ' '));

const { VirtualMailbox } = dist('nodes/VirtualMailbox/VirtualMailbox.node.js');
const { VirtualMailboxTrigger } = dist('nodes/VirtualMailboxTrigger/VirtualMailboxTrigger.node.js');
const { VirtualMailboxPollTrigger } = dist(
	'nodes/VirtualMailboxPollTrigger/VirtualMailboxPollTrigger.node.js',
);
const { VirtualMailboxApi } = dist('credentials/VirtualMailboxApi.credentials.js');
const action = new VirtualMailbox().description;
const trigger = new VirtualMailboxTrigger().description;
const poll = new VirtualMailboxPollTrigger().description;
const credential = new VirtualMailboxApi();

const optionsOf = (description) => description.properties.find((p) => p.name === 'options').options;
const displayNames = (props) => props.map((p) => p.displayName);
/** Every display name anywhere in a node's properties (collections and fixed collections included). */
const allDisplayNames = (props) =>
	props.flatMap((p) => [
		p.displayName,
		...(Array.isArray(p.options)
			? allDisplayNames(p.options.filter((o) => o.displayName || o.values))
			: []),
		...(Array.isArray(p.values) ? allDisplayNames(p.values) : []),
	]);

describe('the README is short and starts with how to try the package', () => {
	test('at most 15,000 characters', () => {
		expect(Buffer.byteLength(README, 'utf8')).toBeLessThanOrEqual(15_000);
	});

	test('the command that tries the package without an account is in the first 40 lines', () => {
		expect(lines.slice(0, 40).join('\n')).toContain('npm run dev');
	});
});

describe('the names the README uses are the names the nodes show', () => {
	test('every Virtual Mailbox Trigger option it names exists, and it names every one', () => {
		const named = bold(
			section('Virtual Mailbox Trigger').split('**Guarantee.**')[0].split('Options:')[1],
		);
		const shown = displayNames(optionsOf(trigger));
		for (const name of named) expect(shown, name).toContain(name);
		// An option the README leaves out is one the reader cannot learn about without opening the node.
		expect(shown.filter((name) => !named.includes(name))).toEqual([]);
	});

	test('every Poll Trigger option it names exists, and it names every one', () => {
		const text = section('Virtual Mailbox Poll Trigger').split('**Guarantee.**')[0];
		const named = bold(text.split('Options:')[1].split('.')[0]);
		const shown = displayNames(optionsOf(poll));
		for (const name of named) expect(shown, name).toContain(name);
		expect(shown.filter((name) => !named.includes(name))).toEqual([]);
	});

	test("the trigger events it lists are the trigger's events", () => {
		const listed = [
			...section('Virtual Mailbox Trigger')
				.split('\n')[1]
				.matchAll(/`([a-z-]+)`/g),
		].map((m) => m[1]);
		expect(listed.sort()).toEqual(
			trigger.properties
				.find((p) => p.name === 'events')
				.options.map((o) => o.value)
				.sort(),
		);
	});

	test("the Poll Trigger events it lists are the Poll Trigger's events", () => {
		const listed = section('Virtual Mailbox Poll Trigger')
			.match(/\*\*Event\*\* \(([^)]+)\)/)[1]
			.replace(/\s+/g, ' ')
			.split(', ');
		expect(listed.sort()).toEqual(
			poll.properties
				.find((p) => p.name === 'event')
				.options.map((o) => o.name)
				.sort(),
		);
	});

	test('every credential field in its table exists', () => {
		const rows = section('Credentials')
			.split('\n')
			.filter((l) => l.startsWith('| ') && !l.startsWith('| field'));
		const fields = rows.flatMap((row) => row.split('|')[1].trim().split(', '));
		const shown = displayNames(credential.properties);
		for (const field of fields) expect(shown, field).toContain(field);
		expect(shown.filter((name) => !fields.includes(name))).toEqual([]);
	});

	test('the action node options it names exist', () => {
		const named = bold(section('Virtual Mailbox'));
		const shown = allDisplayNames(action.properties);
		for (const name of [
			'Return All',
			'Limit',
			'Max Parallel Requests',
			'Confirm List Unchanged',
			'File by Rules',
			'Preview Only',
		])
			expect(named).toContain(name);
		for (const name of named.filter((n) => !['Guarantee.', 'File by Rules'].includes(n)))
			expect(shown, name).toContain(name);
	});
});

describe("the defaults and versions the README states are the code's", () => {
	test('Duplicate Window 1,440 minutes; Max Parallel Requests 6; Confirm List Unchanged off', () => {
		expect(README).toMatch(/\*\*Duplicate Window \(Minutes\)\*\* \(default 1,440\)/);
		expect(optionsOf(trigger).find((o) => o.name === 'duplicateWindowMinutes').default).toBe(1440);
		expect(README).toMatch(/\*\*Max Parallel Requests\*\* pages at a time \(default 6\)/);
		const mailGetAllOptions = action.properties.find(
			(p) =>
				p.name === 'options' &&
				p.displayOptions.show.resource[0] === 'mail' &&
				p.displayOptions.show.operation[0] === 'getAll',
		);
		expect(mailGetAllOptions.options.find((o) => o.name === 'maxParallelRequests').default).toBe(6);
		expect(README).toMatch(/\*\*Confirm List Unchanged\*\* \(option, off\)/);
		expect(mailGetAllOptions.options.find((o) => o.name === 'confirmListUnchanged').default).toBe(
			false,
		);
	});

	test('new triggers are version 2; 1 and 1.1 can still be saved', () => {
		expect(README).toContain('New triggers are version 2; triggers saved at 1 or 1.1');
		expect(trigger.defaultVersion).toBe(2);
		expect(trigger.version).toEqual([1, 1.1, 2]);
	});
});

describe("the operations table is the action node's operations", () => {
	const resources = action.properties.find((p) => p.name === 'resource').options;
	const rows = section('Operations')
		.split('\n')
		.filter((l) => l.startsWith('| ') && !l.startsWith('| resource'));
	/** Split at commas outside parentheses; drop an explanation in parentheses unless it is part of the name. */
	const entries = (cell, names) => {
		const out = [];
		let depth = 0;
		let current = '';
		for (const ch of cell) {
			if (ch === '(') depth++;
			if (ch === ')') depth--;
			if (ch === ',' && depth === 0) {
				out.push(current.trim());
				current = '';
			} else current += ch;
		}
		out.push(current.trim());
		return out.map((entry) => (names.includes(entry) ? entry : entry.replace(/\s*\([^)]*\)$/, '')));
	};

	test("one row per resource, in the node's resource names", () => {
		expect(rows.map((r) => r.split('|')[1].trim()).sort()).toEqual(
			resources.map((r) => r.name).sort(),
		);
	});

	for (const resource of resources) {
		test(`${resource.name}: the operations listed are the node's`, () => {
			const names = action.properties
				.find(
					(p) => p.name === 'operation' && p.displayOptions.show.resource.includes(resource.value),
				)
				.options.map((o) => o.name);
			const row = rows.find((r) => r.split('|')[1].trim() === resource.name);
			expect(entries(row.split('|')[2].trim(), names).sort()).toEqual([...names].sort());
		});
	}

	test('the filter values it lists are the ones the node sends', () => {
		const { MAIL_TYPES, MAIL_STATUSES, SCAN_STATUSES } = dist('nodes/shared/constants.js');
		const { SHIPMENT_STATUSES } = dist('nodes/shared/values.js');
		const text = section('Operations');
		const listAfter = (label, until) =>
			[
				...text
					.split(label)[1]
					.split(until)[0]
					.matchAll(/`([a-z_]+)`/g),
			].map((m) => m[1]);
		expect(listAfter('mail types', 'mail statuses')).toEqual([...MAIL_TYPES]);
		expect(listAfter('mail statuses', 'scan statuses')).toEqual([...MAIL_STATUSES]);
		expect(listAfter('scan statuses', 'shipment')).toEqual([...SCAN_STATUSES]);
		expect(listAfter('shipment\nstatuses', 'Endpoints')).toEqual([...SHIPMENT_STATUSES]);
	});
});

describe('the examples the README lists are the files in examples/', () => {
	const files = readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));
	const workflows = files.map((f) => ({
		file: f,
		workflow: JSON.parse(readFileSync(path.join(ROOT, 'examples', f), 'utf8')),
	}));

	test('each bullet names one example workflow, and every example has a bullet', () => {
		const bullets = section('Examples')
			.split('\n')
			.filter((l) => l.startsWith('- **'))
			.map((l) => l.match(/^- \*\*(.+?)\*\*/)[1]);
		const names = workflows.map(({ workflow }) => workflow.name.replace(/^Virtual Mailbox: /, ''));
		expect(bullets.sort()).toEqual(names.sort());
	});

	// The AI example's chat trigger is started from the chat, so the README promises pinned data
	// for the Virtual Mailbox Trigger examples only.
	test('"In the Virtual Mailbox Trigger examples, the trigger holds pinned sample data": every Virtual Mailbox Trigger in the examples is pinned', () => {
		expect(section('Examples').replace(/\s+/g, ' ')).toMatch(
			/In the Virtual Mailbox Trigger examples, the trigger holds pinned sample data/,
		);
		const triggers = workflows.flatMap(({ file, workflow }) =>
			workflow.nodes
				.filter((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger')
				.map((n) => ({ file, workflow, node: n })),
		);
		expect(triggers.length).toBeGreaterThan(0);
		expect(
			triggers
				.filter(({ workflow, node }) => !workflow.pinData?.[node.name])
				.map(({ file, node }) => `${file}: ${node.name}`),
		).toEqual([]);
	});

	test('each example has a sticky note saying what to set up', () => {
		for (const { file, workflow } of workflows)
			expect(
				workflow.nodes.some(
					(n) => n.type === 'n8n-nodes-base.stickyNote' && /set up/i.test(n.parameters.content),
				),
				file,
			).toBe(true);
	});
});

describe('`npm run dev` is what the README says it is', () => {
	const dev = readFileSync(path.join(ROOT, 'test/dev.mjs'), 'utf8');
	test("n8n on 5678, the simulator on 4010 with its mailroom page, and the credential's name", () => {
		expect(README).toContain('http://127.0.0.1:5678');
		expect(dev).toMatch(/N8N_PORT \?\? 5678/);
		expect(README).toContain('http://127.0.0.1:4010/mailroom');
		expect(dev).toMatch(/SIM_PORT \?\? 4010/);
		expect(dev).toContain('/mailroom');
		expect(README).toContain('"Virtual Mailbox (local simulator)"');
		expect(dev).toContain('"Virtual Mailbox (local simulator)"');
	});

	test('the scripts it runs exist', () => {
		const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
		for (const script of [...README.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1]))
			expect(Object.keys(scripts), script).toContain(script);
	});
});

describe("the error text the README quotes is the nodes' text", () => {
	const source = (dir) =>
		readdirSync(path.join(ROOT, dir), { recursive: true })
			.filter((f) => f.endsWith('.ts'))
			.map((f) => readFileSync(path.join(ROOT, dir, f), 'utf8'))
			.join('\n');
	const code = source('nodes') + source('credentials');
	test("every quoted message of the Troubleshooting table appears in the code (or is n8n's own)", () => {
		const quoted = [...section('Troubleshooting').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
		const n8nOwn = ['Workflow could not be published'];
		for (const text of quoted.filter((q) => !n8nOwn.includes(q)))
			expect(code, text).toContain(text);
	});
});

describe("the README's and docs' links resolve", () => {
	const slug = (heading) =>
		heading
			.trim()
			.toLowerCase()
			.replace(/[^\w\- ]/g, '')
			.replace(/ /g, '-');
	const anchorsOf = (file) =>
		readFileSync(file, 'utf8')
			.split('\n')
			.filter((l) => /^#+\s/.test(l))
			.map((l) => slug(l.replace(/^#+\s*/, '')));
	const docs = readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`);

	for (const file of ['README.md', ...docs]) {
		test(`${file}: every relative link names a file that exists, and its anchor a heading of it`, () => {
			const text = readFileSync(path.join(ROOT, file), 'utf8');
			const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
				.map((m) => m[1])
				.filter((l) => !/^[a-z]+:/.test(l));
			const broken = [];
			for (const link of links) {
				const [target, anchor] = link.split('#');
				const resolved = target
					? path.join(ROOT, path.dirname(file), target)
					: path.join(ROOT, file);
				if (!existsSync(resolved)) broken.push(`${link}: no such file`);
				else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).includes(anchor))
					broken.push(`${link}: no heading #${anchor}`);
			}
			expect(broken).toEqual([]);
		});
	}
});

describe("paths named in the nodes' comments exist", () => {
	test('every test/ or bench/ file a comment in nodes/ or credentials/ points to exists', () => {
		const missing = [];
		for (const dir of ['nodes', 'credentials']) {
			for (const f of readdirSync(path.join(ROOT, dir), { recursive: true }).filter((f) =>
				f.endsWith('.ts'),
			)) {
				const text = readFileSync(path.join(ROOT, dir, f), 'utf8');
				for (const m of text.matchAll(/\b((?:test|bench)\/[\w./-]+\.m?js)\b/g))
					if (!existsSync(path.join(ROOT, m[1]))) missing.push(`${dir}/${f}: ${m[1]}`);
			}
		}
		expect(missing).toEqual([]);
	});
});
