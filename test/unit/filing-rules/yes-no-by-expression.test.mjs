// File by Rules' yes/no parameters set by an expression: the text "true" or "false" (a form field, a
// webhook's query, a Set node's string) is read as the switch it names, so Preview Only "true" never
// writes; anything else fails before any request, naming the parameter.
import { describe, expect, test } from 'vitest';
import { byName, filingRulesSimulator } from './simulator.mjs';

const env = await filingRulesSimulator();
const { add, mail, writes, fileByRules } = env;
const irs = (more = {}) => ({
	rules: { rule: [{ field: 'sender', value: 'IRS', folder: byName('Taxes'), ...more }] },
});

describe('yes/no parameters given by an expression', () => {
	test('Preview Only given as the text "true" previews: nothing is written', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		env.sim.requests.length = 0;
		const { items, error } = await fileByRules([{ id, try: 'true' }], {
			...irs(),
			previewOnly: '={{ $json.try }}',
		});
		expect(error).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(items[0].json).toMatchObject({
			preview: true,
			decision: expect.stringMatching(/^Would file into "Taxes"/),
		});
		expect(mail(id).folder_id).toBeNull();
	});

	test('Preview Only given as text that is neither true nor false fails before any request, naming it', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		env.sim.requests.length = 0;
		const { error } = await fileByRules([{ id }], { ...irs(), previewOnly: '={{ "yes" }}' });
		expect(error?.message).toBe('Preview Only must be true or false, got "yes"');
		expect(env.sim.requests).toEqual([]);
	});

	test('a rule\'s Mark Read and Archive given as the text "true" mark read and archive; other text fails before any request, naming the rule', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		const done = await fileByRules(
			[{ id }],
			irs({ markRead: '={{ "true" }}', archive: '={{ "TRUE" }}' }),
		);
		expect(done.error).toBeUndefined();
		expect(done.items[0].json).toMatchObject({ marked_read: true, archived: true });
		expect([mail(id).is_read, mail(id).mail_status]).toEqual([true, 'archived']);

		const other = add({ sender_name: 'IRS Fresno' }).id;
		env.sim.requests.length = 0;
		const { error } = await fileByRules([{ id: other }], irs({ archive: '={{ "sometimes" }}' }));
		expect(error?.message).toBe('Rule 1: Archive must be true or false, got "sometimes"');
		expect(env.sim.requests).toEqual([]);
	});

	test('a rule\'s Case Sensitive given as the text "true" compares letter case', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		const { items, error } = await fileByRules([{ id }], {
			rules: {
				rule: [
					{
						field: 'sender',
						value: 'irs',
						caseSensitive: '={{ "true" }}',
						folder: byName('Taxes'),
					},
				],
			},
			previewOnly: true,
		});
		expect(error).toBeUndefined();
		expect(items[0].json.decision).toBe('No rule matched: left unchanged');
	});
});
