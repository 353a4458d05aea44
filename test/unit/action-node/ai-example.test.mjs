// The AI agent example's tool can be tried alone with "Execute step": n8n asks for each $fromAI
// value in a form and passes the text typed there, so a value the tool declares as a number fails
// ("Expected number, received string → at limit"). The tool asks the model only for text.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const example = JSON.parse(
	fs.readFileSync(path.join(ROOT, 'examples/ai-agent-what-arrived-this-week.json'), 'utf8'),
);
const tool = example.nodes.find((n) => n.type === 'n8n-nodes-virtual-mailbox.virtualMailboxTool');
/** Every $fromAI(key, description, type, default) in the tool's parameters. */
const fromAi = [
	...JSON.stringify(tool.parameters).matchAll(
		/\$fromAI\(\s*'([^']+)'\s*,\s*'[^']*'\s*,\s*'([^']+)'/g,
	),
].map(([, key, type]) => ({ key, type }));

const { sim, credentials } = await simulatorForFile({ count: 120, seed: 11 }, { reset: false });

test("every value the tool asks the model for is text, so Execute step's form can supply it", () => {
	expect(fromAi.map((p) => p.key)).toEqual(['arrived']);
	for (const { key, type } of fromAi) expect(type, key).toBe('string');
	expect(tool.parameters.limit).toBe(50);
});

test('the tool with the text typed in the form ("week") lists this week\'s mail, at most 50 items', async () => {
	const parameters = JSON.parse(
		JSON.stringify(tool.parameters).replace(/=\{\{ \$fromAI\('arrived'[^}]*\}\}/, 'week'),
	);
	expect(parameters.filters.arrived).toBe('week');
	const { items, error } = await runNode({
		parameters,
		credentials,
	});
	expect(error).toBeUndefined();
	expect(items.length).toBeGreaterThan(0);
	expect(items.length).toBeLessThanOrEqual(50);
	const request = sim.requests.find((r) => r.path === '/v1/mails');
	expect(request.query.arrived).toEqual(['week']);
});

/** The tool's parameters with `arrived` as the agent sent it. */
const withArrived = (arrived) =>
	JSON.parse(
		JSON.stringify(tool.parameters).replace(
			/=\{\{ \$fromAI\('arrived'[^}]*\}\}/,
			arrived.replace(/"/g, '\\"'),
		),
	);

test('the tool sent a period in words ("this week", "Past Month", "last 6 months") lists that period, as the API names it', async () => {
	for (const [said, sent] of [
		['this week', 'week'],
		['Past Month', 'month'],
		['last 6 months', 'half_year'],
		['half year', 'half_year'],
	]) {
		sim.requests.length = 0;
		const { error } = await runNode({
			parameters: withArrived(said),
			credentials,
		});
		expect(error, said).toBeUndefined();
		expect(sim.requests.find((r) => r.path === '/v1/mails').query.arrived, said).toEqual([sent]);
	}
});

test('a period the node cannot read fails before any request, naming Arrived and the values it takes', async () => {
	sim.requests.length = 0;
	const { error } = await runNode({
		parameters: withArrived('since my birthday'),
		credentials,
	});
	expect(error.message).toBe(
		'Arrived must be one of week, month, half_year, year (or Past Week, Past Month, Past Half Year, Past Year); got "since my birthday"',
	);
	expect(sim.requests).toEqual([]);
});
