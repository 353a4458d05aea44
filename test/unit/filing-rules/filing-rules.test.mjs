// Mail → File by Rules: the pure rule matching (each comparison, letter case, first match, bad
// rules), then the operation through n8n's execution code against the simulator: items of every
// trigger shape and Get Many, folders created once, the fallback, missing fields read once,
// Preview Only making no writes, and the requests a run costs.
import { describe, expect, test } from 'vitest';
import { request } from '../../support/webhooks.mjs';
import { dist, runNode, runPoll, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { byName, filingRulesSimulator } from './simulator.mjs';

const R = dist('nodes/VirtualMailbox/actions/mail/filingRules.js');
const rule = (field, extra = {}, folder = 'Folder') => ({
	field,
	...extra,
	folder: byName(folder),
});
const first = (rules, facts) => {
	const decision = R.decide(R.parseRules({ rule: rules }), facts);
	return decision.kind === 'matched' ? decision.rule.position : decision.kind;
};

describe('rule matching (pure)', () => {
	const mail = {
		sender: 'Internal Revenue Service',
		recipient: 'Ada Lovelace',
		mailType: 'letter',
		label: 'Tax notice',
		summary: 'Balance due\nPay by April 15',
		weight: 0.4,
	};
	const text = (comparison, value, extra = {}) =>
		first([rule('sender', { comparison, value, ...extra })], mail);

	test('contains, is, starts with, is one of and matches a pattern, letter case ignored', () => {
		expect(text('contains', 'revenue')).toBe(1);
		expect(text('contains', 'Revenue Office')).toBe('none');
		expect(text('is', 'internal revenue service')).toBe(1);
		expect(text('is', 'Internal Revenue')).toBe('none');
		expect(text('startsWith', 'INTERNAL')).toBe(1);
		expect(text('startsWith', 'Revenue')).toBe('none');
		expect(text('isOneOf', 'IRS, internal revenue service, State Tax Board')).toBe(1);
		expect(text('isOneOf', 'IRS, State Tax Board')).toBe('none');
		expect(text('matchesPattern', '^(irs|internal revenue)')).toBe(1);
		expect(text('matchesPattern', 'service$')).toBe(1);
		expect(text('matchesPattern', '^revenue')).toBe('none');
	});

	test('contains finds text inside words; contains the word only whole words', () => {
		const sender = (comparison, value, name) =>
			first([rule('sender', { comparison, value })], { sender: name });
		expect(sender('contains', 'IRS', 'First National Bank')).toBe(1);
		expect(sender('containsWord', 'IRS', 'First National Bank')).toBe('none');
		expect(sender('containsWord', 'irs', 'IRS Ogden')).toBe(1);
		expect(sender('containsWord', 'IRS', 'Dept. of the Treasury - IRS')).toBe(1);
		expect(sender('containsWord', 'wells fargo', 'Wells Fargo Bank, N.A.')).toBe(1);
		expect(sender('containsWord', 'a.b (c)', 'x a.b (c) y')).toBe(1);
		// The default comparison is the whole word.
		expect(first([rule('sender', { value: 'IRS' })], { sender: 'First National Bank' })).toBe(
			'none',
		);
		expect(first([rule('sender', { value: 'IRS' })], { sender: 'IRS Ogden' })).toBe(1);
	});

	test('Case Sensitive compares letters exactly', () => {
		expect(text('contains', 'revenue', { caseSensitive: true })).toBe('none');
		expect(text('contains', 'Revenue', { caseSensitive: true })).toBe(1);
		expect(text('matchesPattern', '^internal', { caseSensitive: true })).toBe('none');
		expect(text('isOneOf', 'IRS, Internal Revenue Service', { caseSensitive: true })).toBe(1);
	});

	test('recipient, scan label, scan summary and any text', () => {
		expect(first([rule('recipient', { comparison: 'is', value: 'ada lovelace' })], mail)).toBe(1);
		expect(first([rule('label', { comparison: 'contains', value: 'tax' })], mail)).toBe(1);
		expect(first([rule('summary', { comparison: 'contains', value: 'april 15' })], mail)).toBe(1);
		for (const word of ['revenue', 'lovelace', 'letter', 'notice', 'balance'])
			expect(first([rule('anyText', { comparison: 'contains', value: word })], mail), word).toBe(1);
		expect(first([rule('anyText', { comparison: 'contains', value: 'magazine' })], mail)).toBe(
			'none',
		);
	});

	test("mail type from the API's values, whatever the spelling of the item", () => {
		const magazines = [rule('mailType', { mailTypes: ['magazine', 'catalog'] })];
		expect(first(magazines, { mailType: R.normalizeMailType('MAGAZINE') })).toBe(1);
		expect(first(magazines, { mailType: R.normalizeMailType('catalog') })).toBe(1);
		expect(first(magazines, { mailType: R.normalizeMailType('letter') })).toBe('none');
		expect(
			first([rule('mailType', { mailTypes: ['large_letter'] })], {
				mailType: R.normalizeMailType('LARGELETTER'),
			}),
		).toBe(1);
		expect(
			first([rule('mailType', { mailTypes: ['fulfillment'] })], {
				mailType: R.normalizeMailType('fulfillment'),
			}),
		).toBe(1);
	});

	test('weight: greater than, less than, at least, at most, equal to', () => {
		const weight = (weightComparison, w) =>
			first([rule('weight', { weightComparison, weight: w })], { weight: 2.5 });
		expect([weight('greaterThan', 2), weight('greaterThan', 2.5)]).toEqual([1, 'none']);
		expect([weight('lessThan', 3), weight('lessThan', 2.5)]).toEqual([1, 'none']);
		expect([weight('atLeast', 2.5), weight('atLeast', 2.6)]).toEqual([1, 'none']);
		expect([weight('atMost', 2.5), weight('atMost', 2.4)]).toEqual([1, 'none']);
		expect([weight('equals', 2.5), weight('equals', 2)]).toEqual([1, 'none']);
	});

	test('the first rule that matches wins, in the order of the rules', () => {
		const rules = [
			rule('sender', { value: 'bank' }, 'Banks'),
			rule('mailType', { mailTypes: ['letter'] }, 'Letters'),
			rule('sender', { value: 'revenue' }, 'Taxes'),
		];
		expect(first(rules, mail)).toBe(2);
		expect(first([rules[2], rules[1]], mail)).toBe(1);
		expect(first(rules, { ...mail, sender: 'Chase Bank' })).toBe(1);
	});

	test('a rule whose field the item does not say asks for it; one the mail item has none of is skipped, saying why', () => {
		const rules = R.parseRules({
			rule: [rule('label', { value: 'tax' }), rule('weight', { weight: 1 })],
		});
		expect(R.decide(rules, { sender: 'IRS' })).toMatchObject({ kind: 'need', facts: ['label'] });
		expect(R.decide(rules, { label: null })).toMatchObject({ kind: 'need', facts: ['weight'] });
		const decision = R.decide(rules, { label: null, weight: null });
		expect(decision.kind).toBe('none');
		expect(decision.skipped).toEqual([
			{ rule: 1, name: '', reason: 'the mail item has no scan label' },
			{ rule: 2, name: '', reason: 'the mail item has no weight' },
		]);
	});

	test('bad rules are refused, naming the rule by its position', () => {
		const bad = (second) => () =>
			R.parseRules({ rule: [rule('sender', { value: 'IRS' }), second] });
		expect(bad(rule('sender', { value: '  ' }))).toThrow(/^Rule 2: Value is empty/);
		expect(bad(rule('sender', { comparison: 'matchesPattern', value: '(IRS' }))).toThrow(
			/^Rule 2: the pattern \/\(IRS\/ does not compile/,
		);
		expect(bad(rule('sender', { value: 'x' }, ' '))).toThrow(
			/^Rule 2: the folder name is empty \(after expressions\)/,
		);
		expect(
			bad({ field: 'sender', value: 'x', folder: { __rl: true, mode: 'list', value: '' } }),
		).toThrow(/^Rule 2: Folder is empty/);
		expect(
			bad({ field: 'sender', value: 'x', folder: { __rl: true, mode: 'id', value: 'Taxes' } }),
		).toThrow(/^Rule 2: Folder ID must be a number/);
		expect(bad(rule('mailType', { mailTypes: [] }))).toThrow(/^Rule 2: Mail Types is empty/);
		expect(bad(rule('weight', { weight: 'heavy' }))).toThrow(/^Rule 2: Weight must be a number/);
		expect(bad(rule('sender', { comparison: 'isOneOf', value: ' , ,' }))).toThrow(
			/^Rule 2: Value lists nothing/,
		);
	});

	test('the mail item of an input item: its ID, or the mail_id of a scan', () => {
		expect(R.mailIdOfItem({ id: '100001', mail_type: 'letter' })).toBe('100001');
		expect(R.mailIdOfItem({ event: 'scan-update', id: '6f1f…', mail_id: '100002' })).toBe('100002');
		expect(R.mailIdOfItem({ event: 'scan-update', id: 100003, uuid: '6f1f…' })).toBe('100003');
		expect(R.mailIdOfItem({ data: { id: 100004 } })).toBe('100004');
	});
});

const env = await filingRulesSimulator();
const { control, add, calls, webhookItem, mail, folderNamed } = env;
const TAXES_AND_MAGAZINES = {
	rule: [
		rule('sender', { comparison: 'contains', value: 'IRS' }, 'Taxes'),
		{ ...rule('mailType', { mailTypes: ['magazine'] }, 'Magazines'), name: 'Magazines' },
	],
};
const fileByRules = (items, extra = {}) =>
	env.fileByRules(items, { rules: TAXES_AND_MAGAZINES, ...extra });
const writes = () => env.sim.requests.filter((r) => r.method !== 'GET');
/** Get Many's items of these mail items, in the order of `ids`. */
const getManyItems = async (ids) => {
	const listed = (
		await runNode({
			parameters: {
				resource: 'mail',
				operation: 'getAll',
				returnAll: true,
				filters: { arrived: 'week' },
			},
			credentials: env.credentials,
		})
	).items.map((i) => i.json);
	return ids.map((id) => listed.find((m) => m.id === id));
};
describe('File by Rules files mail from the triggers and Get Many', () => {
	test('new mail from the webhook trigger is filed by the first matching rule into folders created once; the rest left unchanged', async () => {
		const irs = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const irs2 = add({ sender_name: 'irs Kansas City', mail_type: 'large_letter' });
		const magazine = add({ sender_name: 'Wired', mail_type: 'magazine' });
		const other = add({ sender_name: 'Grandma', mail_type: 'letter' });
		const items = [];
		for (const m of [irs, irs2, magazine, other]) items.push(await webhookItem(m.id));
		env.sim.requests.length = 0;

		const { items: out, error } = await fileByRules(items);
		expect(error).toBeUndefined();
		const [taxes] = folderNamed('Taxes');
		const [magazines] = folderNamed('Magazines');
		expect(folderNamed('Taxes')).toHaveLength(1);
		expect(folderNamed('Magazines')).toHaveLength(1);
		expect([
			mail(irs.id).folder_id,
			mail(irs2.id).folder_id,
			mail(magazine.id).folder_id,
			mail(other.id).folder_id,
		]).toEqual([taxes.id, taxes.id, magazines.id, null]);
		expect(
			out.map((i) => [i.json.mail_id, i.json.matched_rule, i.json.rule_name, i.json.decision]),
		).toEqual([
			[irs.id, 1, null, 'Filed into "Taxes"'],
			[irs2.id, 1, null, 'Filed into "Taxes"'],
			[magazine.id, 2, 'Magazines', 'Filed into "Magazines" (folder created)'],
			[other.id, null, null, 'No rule matched: left unchanged'],
		]);
		expect(out[0].json.matched_on).toBe('sender contains "IRS"');
		expect(out[0].json.mail).toMatchObject({ id: irs.id, folder: { id: taxes.id, name: 'Taxes' } });
		expect(out.map((i) => i.pairedItem.item)).toEqual([0, 1, 2, 3]);
		// 1 folder list (Taxes exists); per new folder a creation and a look for a twin; 1 update per filed item.
		expect(calls()).toEqual([
			'GET /v1/folders',
			`PATCH /v1/mails/${irs.id}`,
			`PATCH /v1/mails/${irs2.id}`,
			'POST /v1/folders',
			'GET /v1/folders',
			`PATCH /v1/mails/${magazine.id}`,
		]);
	});

	test('version 1 deliveries (upper-case mail type), Poll Trigger items and scans all name their mail item', async () => {
		const magazine = add({ sender_name: 'Wired', mail_type: 'magazine' });
		const v1 = await webhookItem(magazine.id, 1.1);
		expect(v1.mail_type).toBe('MAGAZINE');
		const polled = (
			await runPoll({
				parameters: { event: 'new-mail', filters: {}, options: {} },
				credentials: env.credentials,
				mode: 'manual',
			})
		).result[0]
			.map((i) => i.json)
			.find((m) => m.id === magazine.id);
		const scan = await control(`/mails/${magazine.id}/scan`, { type: 'open' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const { payload } = await control('/deliver', { event: 'open-update', id: scan.id });
		const scanItem = (
			await runWebhook({
				parameters: { events: ['open-update'], options: {} },
				request: request(payload, { secret: env.sim.webhookSecret }),
				credentials: env.credentials,
				typeVersion: 2,
			})
		).result.workflowData[0][0].json;
		expect(scanItem.mail_id).toBe(magazine.id);
		env.sim.requests.length = 0;

		const { items: out, error } = await fileByRules([v1, polled, scanItem]);
		expect(error).toBeUndefined();
		expect(out.map((i) => [i.json.mail_id, i.json.matched_rule])).toEqual([
			[magazine.id, 2],
			[magazine.id, 2],
			[magazine.id, 2],
		]);
		// Each item says sender and mail type; only the scan does not say where its mail item is
		// (folder, read state), which is read once before filing.
		expect(calls().filter((c) => c.startsWith('GET /v1/mails'))).toEqual([
			`GET /v1/mails/${magazine.id}`,
		]);
	});

	test('Get Many items filed with mark read and archive: one update and one archive per item', async () => {
		const ids = [
			add({ sender_name: 'IRS', mail_type: 'letter' }).id,
			add({ sender_name: 'IRS', mail_type: 'letter' }).id,
		];
		const items = await getManyItems(ids);
		env.sim.requests.length = 0;
		const rules = {
			rule: [{ ...rule('sender', { value: 'irs' }, 'Taxes'), markRead: true, archive: true }],
		};
		const { items: out, error } = await fileByRules(items, { rules });
		expect(error).toBeUndefined();
		for (const id of ids)
			expect(mail(id)).toMatchObject({
				folder_id: folderNamed('Taxes')[0].id,
				is_read: true,
				mail_status: 'archived',
			});
		expect(out[1].json).toMatchObject({
			decision: 'Filed into "Taxes", marked read, archived',
			marked_read: true,
			archived: true,
			folder_created: false,
		});
		expect(calls().filter((c) => c !== 'POST /v1/folders' && c !== 'GET /v1/folders')).toEqual(
			ids.flatMap((id) => [`PATCH /v1/mails/${id}`, `POST /v1/mails/${id}/archive`]),
		);
		expect(
			env.sim.requests.filter((r) => r.path === '/v1/mails/' + ids[0] && r.method === 'PATCH')[0]
				.body,
		).toBe(JSON.stringify({ folder_id: folderNamed('Taxes')[0].id, is_read: true }));
	});

	test('a folder picked from the list or given by ID needs no folder list', async () => {
		const id = add({ sender_name: 'IRS' }).id;
		const taxes = env.sim.db.folders.find((f) => f.name === 'Taxes');
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				{
					field: 'sender',
					value: 'IRS',
					folder: { __rl: true, mode: 'list', value: taxes.id, cachedResultName: 'Taxes' },
				},
			],
		};
		const { items: out } = await fileByRules([{ id }], { rules });
		expect(calls()).toEqual([`GET /v1/mails/${id}`, `PATCH /v1/mails/${id}`]);
		expect(out[0].json).toMatchObject({
			folder_id: taxes.id,
			folder_name: 'Taxes',
			decision: 'Filed into "Taxes"',
		});
		expect(mail(id).folder_id).toBe(taxes.id);
	});
});

describe('the fallback for mail no rule matches', () => {
	test('When No Rule Matches: File Into a Folder files the rest there (mark read as asked)', async () => {
		const grandma = add({ sender_name: 'Grandma', mail_type: 'letter' });
		const irs = add({ sender_name: 'IRS', mail_type: 'letter' });
		const { items: out, error } = await fileByRules(
			[await webhookItem(grandma.id), await webhookItem(irs.id)],
			{
				noMatch: 'file',
				noMatchFolder: byName('To Sort'),
				options: { noMatchMarkRead: true },
			},
		);
		expect(error).toBeUndefined();
		expect(mail(grandma.id)).toMatchObject({
			folder_id: folderNamed('To Sort')[0].id,
			is_read: true,
		});
		expect(mail(irs.id)).toMatchObject({ folder_id: folderNamed('Taxes')[0].id, is_read: false });
		expect(out[0].json).toMatchObject({
			matched_rule: null,
			decision: 'No rule matched: Filed into "To Sort" (folder created), marked read',
		});
	});

	test('an empty fallback folder name fails before any request', async () => {
		env.sim.requests.length = 0;
		const { error } = await fileByRules([{ id: env.sim.db.mails[0].id }], {
			noMatch: 'file',
			noMatchFolder: byName('={{ "" }}'),
		});
		expect(error.message).toBe('The fallback folder name is empty (after expressions)');
		expect(env.sim.requests).toHaveLength(0);
	});
});

describe('an item that lacks a field a rule needs', () => {
	test('a Get Many item has no weight: the mail item is read once, then filed', async () => {
		const heavy = add({ sender_name: 'Parts Shop', mail_type: 'package', weight: 4 });
		const light = add({ sender_name: 'Grandma', mail_type: 'letter', weight: 0.1 });
		const items = await getManyItems([heavy.id, light.id]);
		expect(items[0].weight).toBeUndefined();
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				rule('weight', { weightComparison: 'atLeast', weight: 2 }, 'Heavy'),
				rule('anyText', { value: 'grandma' }, 'Family'),
			],
		};
		const { items: out, error } = await fileByRules(items, { rules });
		expect(error).toBeUndefined();
		expect(mail(heavy.id).folder_id).toBe(folderNamed('Heavy')[0].id);
		expect(mail(light.id).folder_id).toBe(folderNamed('Family')[0].id);
		expect(
			env.sim.requests
				.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/mails/'))
				.map((r) => r.path),
		).toEqual([`/v1/mails/${heavy.id}`, `/v1/mails/${light.id}`]);
		expect(out[1].json.matched_on).toBe('any text contains the word "grandma"');
	});

	test('a new-mail delivery has no scan: the label rule reads the mail item once and says why it was skipped', async () => {
		const letter = add({ sender_name: 'Acme', mail_type: 'letter' });
		const item = await webhookItem(letter.id);
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				rule('label', { value: 'invoice' }, 'Invoices'),
				rule('sender', { value: 'acme' }, 'Acme'),
			],
		};
		const { items: out } = await fileByRules([item], { rules });
		expect(calls()).toEqual([
			`GET /v1/mails/${letter.id}`,
			'GET /v1/folders',
			'POST /v1/folders',
			'GET /v1/folders',
			`PATCH /v1/mails/${letter.id}`,
		]);
		expect(out[0].json).toMatchObject({
			matched_rule: 2,
			skipped_rules: [{ rule: 1, name: '', reason: 'the mail item has no scan label' }],
		});
	});

	test("a scanned mail item's summary is read from its scan, once", async () => {
		const letter = add({ sender_name: 'Acme', mail_type: 'letter' });
		const scan = await control(`/mails/${letter.id}/scan`, { type: 'scan' });
		await fetch(`${env.sim.url}/v1/sandbox/scans/${scan.id}/complete`, {
			method: 'POST',
			headers: { authorization: `Bearer ${env.sim.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'Invoice', summary: ['Invoice 2291', 'Due on receipt'] }),
		});
		const [item] = await getManyItems([letter.id]);
		expect(item.scan).toMatchObject({ status: 'COMPLETED', label: 'Invoice' });
		env.sim.requests.length = 0;
		const rules = { rule: [rule('summary', { value: 'due on receipt' }, 'To Pay')] };
		const { items: out } = await fileByRules([item], { rules, previewOnly: true });
		expect(calls()).toEqual([`GET /v1/scans/${scan.id}/summary`, 'GET /v1/folders']);
		expect(out[0].json).toMatchObject({
			matched_rule: 1,
			decision: 'Would file into "To Pay" (folder would be created)',
		});
	});
});

describe('Preview Only', () => {
	test('outputs every decision and makes no writes at all, not even a folder', async () => {
		const irs = add({ sender_name: 'IRS', mail_type: 'letter' });
		const magazine = add({ sender_name: 'Wired', mail_type: 'magazine' });
		const other = add({ sender_name: 'Grandma', mail_type: 'letter' });
		const items = await getManyItems([irs.id, magazine.id, other.id]);
		const before = JSON.stringify(env.sim.db.mails) + JSON.stringify(env.sim.db.folders);
		env.sim.requests.length = 0;
		const { items: out, error } = await fileByRules(items, {
			previewOnly: true,
			rules: {
				rule: [
					{ ...TAXES_AND_MAGAZINES.rule[0], markRead: true, archive: true },
					TAXES_AND_MAGAZINES.rule[1],
				],
			},
		});
		expect(error).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(JSON.stringify(env.sim.db.mails) + JSON.stringify(env.sim.db.folders)).toBe(before);
		expect(calls()).toEqual(['GET /v1/folders']);
		const byId = Object.fromEntries(out.map((i) => [i.json.mail_id, i.json]));
		expect(byId[irs.id]).toMatchObject({
			preview: true,
			matched_rule: 1,
			folder_id: folderNamed('Taxes')[0].id,
			decision: 'Would file into "Taxes", would be marked read, would be archived',
		});
		expect(byId[magazine.id]).toMatchObject({
			preview: true,
			matched_rule: 2,
			folder_id: null,
			folder_created: false,
			would_create_folder: true,
			would_file: true,
			decision: 'Would file into "Magazines" (folder would be created)',
		});
		expect(byId[other.id]).toMatchObject({
			preview: true,
			matched_rule: null,
			decision: 'No rule matched: left unchanged',
		});
	});
});

describe('bad rules fail before any request, naming the rule', () => {
	test('a pattern that does not compile', async () => {
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				rule('sender', { value: 'IRS' }, 'Taxes'),
				rule('sender', { comparison: 'matchesPattern', value: '[Chase' }, 'Banks'),
			],
		};
		const { error } = await fileByRules([{ id: env.sim.db.mails[0].id }], { rules });
		expect(error.message).toMatch(/^Rule 2: the pattern \/\[Chase\/ does not compile/);
		expect(env.sim.requests).toHaveLength(0);
	});

	test("a folder name empty after expressions for a later item stops the run before the first item's request", async () => {
		const [a, b] = env.sim.db.mails;
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				rule('sender', { value: 'IRS' }, 'Taxes'),
				rule('anyText', { value: 'x' }, '={{ $json.folder }}'),
			],
		};
		const { error } = await fileByRules(
			[
				{ id: a.id, folder: 'Misc' },
				{ id: b.id, folder: '' },
			],
			{ rules },
		);
		expect(error.message).toBe('Rule 2: the folder name is empty (after expressions)');
		expect(env.sim.requests).toHaveLength(0);
	});

	test('an empty value and an empty list of mail types', async () => {
		const empty = await fileByRules([{ id: env.sim.db.mails[0].id }], {
			rules: { rule: [rule('recipient', { value: '' }, 'X')] },
		});
		expect(empty.error.message).toMatch(/^Rule 1: Value is empty/);
		const noTypes = await fileByRules([{ id: env.sim.db.mails[0].id }], {
			rules: {
				rule: [rule('sender', { value: 'a' }, 'X'), rule('mailType', { mailTypes: [] }, 'Y')],
			},
		});
		expect(noTypes.error.message).toMatch(/^Rule 2: Mail Types is empty/);
		expect(env.sim.requests).toHaveLength(0);
	});
});

describe('the folder a rule files into', () => {
	test('a folder named in other letter case: the output names the folder as it is called', async () => {
		const irs = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const taxes = folderNamed('Taxes')[0];
		const { items: out, error } = await fileByRules([{ id: irs.id }], {
			rules: { rule: [rule('sender', { value: 'IRS' }, 'taxes')] },
		});
		expect(error).toBeUndefined();
		expect(out[0].json).toMatchObject({
			folder_id: taxes.id,
			folder_name: 'Taxes',
			folder_created: false,
			decision: 'Filed into "Taxes"',
		});
	});

	test('a folder ID that does not exist: the preview says so for each item from one folder list; the real run fails naming the rule', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const b = add({ sender_name: 'IRS Fresno', mail_type: 'letter' });
		const rules = {
			rule: [
				{ field: 'sender', value: 'IRS', folder: { __rl: true, mode: 'id', value: '987654' } },
			],
		};
		const items = [
			{ id: a.id, sender_name: a.sender_name },
			{ id: b.id, sender_name: b.sender_name },
		];
		env.sim.requests.length = 0;
		const preview = await fileByRules(items, { rules, previewOnly: true });
		expect(preview.error).toBeUndefined();
		expect(preview.items.map((i) => i.json.decision)).toEqual([
			"Would fail: Rule 1's folder ID 987654 does not exist",
			"Would fail: Rule 1's folder ID 987654 does not exist",
		]);
		expect(calls()).toEqual(['GET /v1/folders']);
		const real = await fileByRules(items, { rules });
		expect(real.error.message).toMatch(/^Rule 1 \(folder ID 987654\): /);
	});

	test('a folder ID that exists: the preview names the folder', async () => {
		const a = add({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		const taxes = folderNamed('Taxes')[0];
		const rules = {
			rule: [
				{
					field: 'sender',
					value: 'IRS',
					folder: { __rl: true, mode: 'id', value: String(taxes.id) },
				},
			],
		};
		const { items: out } = await fileByRules([{ id: a.id, sender_name: a.sender_name }], {
			rules,
			previewOnly: true,
		});
		expect(out[0].json).toMatchObject({
			folder_id: String(taxes.id),
			folder_name: 'Taxes',
			decision: 'Would file into "Taxes"',
		});
	});
});

describe('a new rule looks in any text of the mail item', () => {
	test('the first rule starts as Any Text, Contains the Word', async () => {
		const { VirtualMailbox } = dist('nodes/VirtualMailbox/VirtualMailbox.node.js');
		const rules = new VirtualMailbox().description.properties.find(
			(p) => p.name === 'rules' && p.displayOptions?.show?.operation?.includes('applyRules'),
		);
		expect(rules.default.rule[0]).toMatchObject({ field: 'anyText', comparison: 'containsWord' });
		expect(rules.options[0].values.find((v) => v.name === 'field').default).toBe('anyText');
	});

	test('a rule saved without a field (the default) files mail of type magazine by the word "magazine"', async () => {
		const magazine = add({ sender_name: 'Wired', mail_type: 'magazine' });
		const item = await webhookItem(magazine.id);
		env.sim.requests.length = 0;
		const rules = {
			rule: [
				{ value: 'IRS', folder: byName('Taxes') },
				{ value: 'magazine', folder: byName('Magazines') },
			],
		};
		const { items: out, error } = await fileByRules([item], { rules });
		expect(error).toBeUndefined();
		expect(out[0].json).toMatchObject({
			matched_rule: 2,
			matched_on: 'any text contains the word "magazine"',
		});
		expect(calls()).toEqual([
			'GET /v1/mails/' + magazine.id,
			'GET /v1/folders',
			'POST /v1/folders',
			'GET /v1/folders',
			`PATCH /v1/mails/${magazine.id}`,
		]);
	});
});
