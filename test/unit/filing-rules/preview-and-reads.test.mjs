// File by Rules against the simulator: Preview Only's decisions are the decisions the real run
// makes, and an Any Text rule that already matches what the item says reads nothing more.
import { describe, expect, test } from 'vitest';
import { byName, filingRulesSimulator } from './simulator.mjs';

const env = await filingRulesSimulator();
const { add, calls, webhookItem, fileByRules } = env;
/** A decision in the words of a real run. */
const asReal = (decision) =>
	decision
		.replace(/^Would file/, 'Filed')
		.replace('(folder would be created)', '(folder created)')
		.replace(/would be /g, '');

describe('Preview Only decides what the real run then does', () => {
	test('two items filed into the same missing folder: the preview says it is created once, as the run does', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const b = add({ sender_name: 'IRS Fresno', mail_type: 'letter' });
		const items = [
			{ id: a.id, sender_name: a.sender_name },
			{ id: b.id, sender_name: b.sender_name },
		];
		const rules = {
			rule: [
				{
					field: 'sender',
					comparison: 'containsWord',
					value: 'IRS',
					folder: byName('Tax Letters 2026'),
				},
			],
		};

		const preview = await fileByRules(items, { rules, previewOnly: true });
		expect(preview.error).toBeUndefined();
		const real = await fileByRules(items, { rules });
		expect(real.error).toBeUndefined();
		expect(env.sim.db.folders.filter((f) => f.name === 'Tax Letters 2026')).toHaveLength(1);
		expect(real.items.map((i) => [i.json.decision, i.json.folder_created])).toEqual([
			['Filed into "Tax Letters 2026" (folder created)', true],
			['Filed into "Tax Letters 2026"', false],
		]);
		expect(preview.items.map((i) => [asReal(i.json.decision), i.json.would_create_folder])).toEqual(
			real.items.map((i) => [i.json.decision, i.json.folder_created]),
		);
	});

	test('a rule whose folder ID does not exist: the preview does not promise a filing the real run refuses', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		expect(env.sim.db.folders.some((f) => f.id === '987654')).toBe(false);
		const rules = {
			rule: [
				{ field: 'sender', value: 'IRS', folder: { __rl: true, mode: 'id', value: '987654' } },
			],
		};
		const real = await fileByRules([{ id: a.id }], { rules });
		expect(real.error?.message ?? '').not.toBe('');
		const preview = await fileByRules([{ id: a.id }], { rules, previewOnly: true });
		const said = preview.error?.message ?? preview.items[0].json.decision;
		expect(said).not.toMatch(/^Would file/);
	});
});

describe('Any Text reads the mail item only when what the item says does not decide', () => {
	test('a new-mail delivery whose sender matches an Any Text rule is filed without reading the mail item', async () => {
		const irs = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const item = await webhookItem(irs.id);
		expect(item.sender_name).toBe('IRS Ogden');
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				{ field: 'anyText', comparison: 'containsWord', value: 'IRS', folder: byName('Taxes') },
			],
		};
		const { items: out, error } = await fileByRules([item], { rules });
		expect(error).toBeUndefined();
		expect(out[0].json).toMatchObject({ matched_rule: 1, decision: 'Filed into "Taxes"' });
		// The sender already matches; the scan label and summary cannot undo a match.
		expect(calls()).toEqual(['GET /v1/folders', `PATCH /v1/mails/${irs.id}`]);
	});
});
