import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';

const { VirtualMailbox } = dist('nodes/VirtualMailbox/VirtualMailbox.node.js');
const { forOperation } = dist('nodes/shared/display.js');
const { properties } = new VirtualMailbox().description;

describe('the action node shows each parameter for exactly one operation', () => {
	const pickers = properties.filter((p) => p.name === 'resource' || p.name === 'operation');
	const resources = properties.find((p) => p.name === 'resource').options.map((o) => o.value);
	const operationsOf = (resource) =>
		pickers
			.find((p) => p.name === 'operation' && p.displayOptions.show.resource.includes(resource))
			.options.map((o) => o.value);

	test('every other parameter names one resource and one of its operations', () => {
		const others = properties.filter((p) => !pickers.includes(p));
		expect(others.length).toBeGreaterThan(40);
		for (const property of others) {
			const { resource, operation } = property.displayOptions.show;
			expect(resource, property.name).toHaveLength(1);
			expect(operation, property.name).toHaveLength(1);
			expect(resources).toContain(resource[0]);
			expect(operationsOf(resource[0]), `${property.name} of ${resource[0]}`).toContain(
				operation[0],
			);
		}
	});

	test('every operation of every resource has at least one parameter or none is needed', () => {
		const shown = new Set(
			properties
				.filter((p) => !pickers.includes(p))
				.map((p) => `${p.displayOptions.show.resource[0]}.${p.displayOptions.show.operation[0]}`),
		);
		const bare = resources
			.flatMap((r) => operationsOf(r).map((o) => `${r}.${o}`))
			.filter((key) => !shown.has(key));
		expect(bare.sort()).toEqual(['account.get', 'account.getMailingAddress', 'mail.seedMailbox']);
	});
});

describe('forOperation', () => {
	test('adds the resource and operation and keeps conditions the property already has', () => {
		const limit = {
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			displayOptions: { show: { returnAll: [false] }, hide: { x: [1] } },
		};
		const [out] = forOperation('mail', 'getAll', [limit]);
		expect(out.displayOptions).toEqual({
			show: { returnAll: [false], resource: ['mail'], operation: ['getAll'] },
			hide: { x: [1] },
		});
		expect(limit.displayOptions.show).toEqual({ returnAll: [false] }); // the shared definition is not changed
	});
});

describe('the panel warns where an operation costs money or destroys something', () => {
	const noticesOf = (resource, operation) =>
		properties
			.filter(
				(p) =>
					p.type === 'notice' &&
					p.displayOptions.show.resource[0] === resource &&
					p.displayOptions.show.operation[0] === operation,
			)
			.map((p) => p.displayName);

	test('Scan → Create says it is billable; Mail → Discard and Scan → Delete say what is lost for good', () => {
		expect(noticesOf('scan', 'create')).toEqual([
			expect.stringMatching(/^Billable: every run .*Sandbox credential/),
		]);
		expect(noticesOf('mail', 'discard')).toEqual([
			expect.stringMatching(/^Destructive: the mail item is shredded 7 days after .*Undiscard/),
		]);
		expect(noticesOf('scan', 'delete')).toEqual([
			expect.stringMatching(/^Destructive: the stored scan file is deleted for good/),
		]);
		// Only those: a notice on every operation would be noise.
		const all = properties
			.filter((p) => p.type === 'notice')
			.map((p) => `${p.displayOptions.show.resource[0]}.${p.displayOptions.show.operation[0]}`);
		expect(all.sort()).toEqual(['mail.discard', 'scan.create', 'scan.delete']);
	});

	test('filing is found under the name a user looks for, while the saved value stays "update"', () => {
		const mailOperations = properties.find(
			(p) => p.name === 'operation' && p.displayOptions.show.resource[0] === 'mail',
		).options;
		const filing = mailOperations.find((o) => o.value === 'update');
		expect(filing.name).toBe('Move to Folder or Mark Read');
		expect(filing.action).toBe('Move mail to folder');
	});
});
