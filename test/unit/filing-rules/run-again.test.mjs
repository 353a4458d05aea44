// File by Rules run again over the same mail: an action already in effect (in the folder, read,
// archived) is skipped and said to be, in the preview too; an archive the API refuses because the
// mail item is already archived fails nothing, any other refusal still fails. Preview Only set per
// item, its own output as input, a scan summary the plan does not allow, and a mail type by name.
import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';
import { byName, filingRulesSimulator } from './simulator.mjs';

const R = dist('nodes/VirtualMailbox/actions/mail/filingRules.js');
const env = await filingRulesSimulator();
const { add, control, calls, mail, folderNamed, writes, fileByRules, getMany } = env;
const TAXES_READ_ARCHIVED = {
	rules: {
		rule: [
			{
				field: 'sender',
				value: 'IRS',
				folder: byName('Taxes'),
				markRead: true,
				archive: true,
			},
		],
	},
};
/** A decision in the words of a real run. */
const asReal = (decision) =>
	decision
		.replace(/^Would file/, 'Filed')
		.replace('(folder would be created)', '(folder created)')
		.replace(/would be /g, '');
const endState = (ids) =>
	ids.map((id) => {
		const m = mail(id);
		return [id, m.folder_id, m.is_read, m.mail_status];
	});

describe('run again over the same mail', () => {
	test('a second run over Get Many read again writes nothing, fails nothing and says each action is already done', async () => {
		const ids = [add({ sender_name: 'IRS Ogden' }).id, add({ sender_name: 'IRS Fresno' }).id];
		const first = await fileByRules(await getMany(ids), TAXES_READ_ARCHIVED);
		expect(first.error).toBeUndefined();
		const after = endState(ids);
		const items = await getMany(ids);
		env.sim.requests.length = 0;

		const again = await fileByRules(items, TAXES_READ_ARCHIVED);
		expect(again.error).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(endState(ids)).toEqual(after);
		for (const { json } of again.items)
			expect(json).toMatchObject({
				decision: 'Already in "Taxes", already read, already archived',
				filed: false,
				marked_read: false,
				archived: false,
				already_in_folder: true,
				already_read: true,
				already_archived: true,
			});
		// The preview of that second run says the same.
		const preview = await fileByRules(items, { ...TAXES_READ_ARCHIVED, previewOnly: true });
		expect(preview.items.map((i) => i.json.decision)).toEqual(
			again.items.map((i) => i.json.decision),
		);
		expect(preview.items[0].json).toMatchObject({
			would_file: false,
			would_mark_read: false,
			would_archive: false,
		});
	});

	test('Get Many over mail partly archived already: the preview and the run agree item by item, and the archived ones are not archived again', async () => {
		const ids = [
			add({ sender_name: 'IRS Ogden' }).id,
			add({ sender_name: 'IRS Fresno', mail_status: 'archived' }).id,
			add({ sender_name: 'IRS Austin' }).id,
		];
		const items = await getMany(ids);
		const preview = await fileByRules(items, { ...TAXES_READ_ARCHIVED, previewOnly: true });
		expect(preview.error).toBeUndefined();
		expect(preview.items[1].json.decision).toBe(
			'Would file into "Taxes", would be marked read, already archived',
		);
		env.sim.requests.length = 0;
		const real = await fileByRules(items, TAXES_READ_ARCHIVED);
		expect(real.error).toBeUndefined();
		expect(real.items.map((i) => i.json.decision)).toEqual(
			preview.items.map((i) => asReal(i.json.decision)),
		);
		expect(writes().filter((w) => w.endsWith('/archive'))).toEqual([
			`POST /v1/mails/${ids[0]}/archive`,
			`POST /v1/mails/${ids[2]}/archive`,
		]);
		expect(real.items[1].json).toMatchObject({ archived: false, already_archived: true });
		const taxes = folderNamed('Taxes')[0].id;
		expect(endState(ids)).toEqual(ids.map((id) => [id, taxes, true, 'archived']));
	});

	test("run again over the same items after a run that failed part way: nothing fails, the end state is the whole run's, the archive already done says so", async () => {
		const ids = [
			add({ sender_name: 'IRS Ogden' }).id,
			add({ sender_name: 'IRS Fresno' }).id,
			add({ sender_name: 'IRS Austin' }).id,
		];
		// The same input items both times, as pinned data or a retried execution holds them.
		const items = await getMany(ids);
		await control('/faults', {
			path: `/v1/mails/${ids[2]}`,
			method: 'PATCH',
			status: 500,
			count: 1,
		});
		const first = await fileByRules(items, TAXES_READ_ARCHIVED);
		expect(first.error?.message).toMatch(/^Rule 1 \(folder "Taxes"\): /);
		expect(mail(ids[0]).mail_status).toBe('archived');
		expect(mail(ids[2]).folder_id).toBeNull();

		const again = await fileByRules(items, TAXES_READ_ARCHIVED);
		expect(again.error).toBeUndefined();
		const taxes = folderNamed('Taxes')[0].id;
		expect(endState(ids)).toEqual(ids.map((id) => [id, taxes, true, 'archived']));
		expect(again.items.map((i) => [i.json.archived, i.json.already_archived])).toEqual([
			[false, true],
			[false, true],
			[true, false],
		]);
		expect(again.items[0].json.decision).toMatch(/, already archived$/);
		// A third run, over Get Many read again, has nothing left to do.
		env.sim.requests.length = 0;
		const third = await fileByRules(await getMany(ids), TAXES_READ_ARCHIVED);
		expect(third.error).toBeUndefined();
		expect(writes()).toEqual([]);
	});

	test('an archive the API refuses for another reason (mail in quarantine) still fails the item, naming the rule; the preview says it would fail', async () => {
		const id = add({ sender_name: 'IRS Ogden', mail_status: 'quarantine' }).id;
		const items = await getMany([id]);
		const preview = await fileByRules(items, { ...TAXES_READ_ARCHIVED, previewOnly: true });
		expect(preview.items[0].json).toMatchObject({
			decision:
				'Would file into "Taxes", would be marked read, would fail to be archived (it is quarantine; the API archives mail in the inbox only)',
			would_archive: false,
		});
		const real = await fileByRules(items, TAXES_READ_ARCHIVED);
		expect(real.error?.message).toMatch(
			/^Rule 1 \(archive\): the mail item was filed into "Taxes", then archiving failed: Conflict/,
		);
		expect(mail(id).mail_status).toBe('quarantine');
	});

	test('a new-mail delivery filed twice (sent twice): the same end state, nothing fails, the mail item read only to check why the archive was refused', async () => {
		const id = add({ sender_name: 'IRS Ogden' }).id;
		const item = await env.webhookItem(id);
		const rules = {
			rules: { rule: [{ field: 'sender', value: 'IRS', folder: byName('Taxes'), archive: true }] },
		};
		expect((await fileByRules([item], rules)).error).toBeUndefined();
		env.sim.requests.length = 0;
		const again = await fileByRules([item], rules);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({ already_archived: true, archived: false });
		// The archive's refusal is checked by reading the mail item, only then.
		expect(calls()).toEqual([
			'GET /v1/folders',
			`PATCH /v1/mails/${id}`,
			`POST /v1/mails/${id}/archive`,
			`GET /v1/mails/${id}`,
		]);
		expect(endState([id])).toEqual([[id, folderNamed('Taxes')[0].id, false, 'archived']]);
	});
});

describe('Preview Only set per item by an expression', () => {
	test('a real item after a previewed one creates the folder the preview would create, and files into it with its ID', async () => {
		const ids = [
			add({ sender_name: 'IRS Ogden' }).id,
			add({ sender_name: 'IRS Fresno' }).id,
			add({ sender_name: 'IRS Austin' }).id,
		];
		const items = (await getMany(ids)).map((m, k) => ({ ...m, try: k !== 1 }));
		const { items: out, error } = await fileByRules(items, {
			rules: { rule: [{ field: 'sender', value: 'IRS', folder: byName('Tax Letters 2026') }] },
			previewOnly: '={{ $json.try }}',
		});
		expect(error).toBeUndefined();
		const [created] = folderNamed('Tax Letters 2026');
		expect(folderNamed('Tax Letters 2026')).toHaveLength(1);
		expect(out.map((i) => [i.json.preview, i.json.decision, i.json.folder_id])).toEqual([
			[true, 'Would file into "Tax Letters 2026" (folder would be created)', null],
			[false, 'Filed into "Tax Letters 2026" (folder created)', created.id],
			[true, 'Would file into "Tax Letters 2026"', created.id],
		]);
		expect(out.map((i) => [i.json.folder_created, i.json.would_create_folder])).toEqual([
			[false, true],
			[true, undefined],
			[false, false],
		]);
		expect(endState(ids).map(([, folder]) => folder)).toEqual([null, created.id, null]);
	});
});

describe('the facts of any item a user feeds it', () => {
	/** A letter from Acme with a completed scan labelled Invoice, whose summary says "due 30 April". */
	const scannedLetter = async () => {
		const letter = add({ sender_name: 'Acme', mail_type: 'letter' });
		const scan = await control(`/mails/${letter.id}/scan`, { type: 'scan' });
		await fetch(`${env.sim.url}/v1/sandbox/scans/${scan.id}/complete`, {
			method: 'POST',
			headers: { authorization: `Bearer ${env.sim.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ label: 'Invoice', summary: ['Invoice 2291', 'Payment due 30 April'] }),
		});
		return { letter, scan };
	};

	test("File by Rules' own output into a second File by Rules: label and summary rules read the scan, Any Text finds a word only in the summary", async () => {
		const { letter } = await scannedLetter();
		const first = await fileByRules(await getMany([letter.id]), {
			rules: { rule: [{ field: 'sender', value: 'Acme', folder: byName('Acme') }] },
		});
		expect(first.error).toBeUndefined();
		const second = await fileByRules([first.items[0].json], {
			rules: {
				rule: [
					{
						field: 'label',
						comparison: 'is',
						value: 'invoice',
						folder: byName('Invoices'),
						name: 'label',
					},
				],
			},
		});
		expect(second.error).toBeUndefined();
		expect(second.items[0].json).toMatchObject({
			matched_rule: 1,
			decision: 'Filed into "Invoices" (folder created)',
		});
		expect(second.items[0].json.skipped_rules).toBeUndefined();
		const third = await fileByRules([second.items[0].json], {
			rules: {
				rule: [
					{ field: 'summary', value: 'nothing like this', folder: byName('X') },
					{ value: 'april', folder: byName('Due in April') },
				],
			},
		});
		expect(third.error).toBeUndefined();
		expect(third.items[0].json).toMatchObject({
			matched_rule: 2,
			matched_on: 'any text contains the word "april"',
		});
		expect(mail(letter.id).folder_id).toBe(folderNamed('Due in April')[0].id);
	});

	test('a scan summary the plan does not allow (403): the item is filed by the other fields, and the rules that needed the summary are listed as skipped, saying why', async () => {
		const { letter, scan } = await scannedLetter();
		const items = await getMany([letter.id]);
		await control('/faults', { path: `/v1/scans/${scan.id}/summary`, status: 403, count: 5 });
		const { items: out, error } = await fileByRules(items, {
			rules: {
				rule: [
					{ field: 'summary', value: 'april', folder: byName('Due in April') },
					{ value: 'april', folder: byName('Due in April') },
					{ field: 'sender', value: 'acme', folder: byName('Acme') },
				],
			},
		});
		expect(error).toBeUndefined();
		expect(out[0].json).toMatchObject({
			matched_rule: 3,
			decision: 'Filed into "Acme" (folder created)',
		});
		expect(out[0].json.skipped_rules.map((s) => s.rule)).toEqual([1, 2]);
		expect(out[0].json.skipped_rules[0].reason).toMatch(
			/^the scan summary could not be read: .*403/,
		);
		expect(out[0].json.skipped_rules[1].reason).toMatch(
			/^looked in the rest only: the scan summary could not be read/,
		);
		expect(mail(letter.id).folder_id).toBe(folderNamed('Acme')[0].id);
	});

	test('Any Text "large letter" matches a large letter, as the Mail Types picker names it', async () => {
		const anyText = (value) =>
			R.decide(R.parseRules({ rule: [{ value, folder: byName('Big') }] }), {
				sender: 'Grandma',
				recipient: null,
				mailType: R.normalizeMailType('LARGELETTER'),
				label: null,
				summary: null,
			}).kind;
		expect(anyText('large letter')).toBe('matched');
		expect(anyText('Large letter')).toBe('matched');
		expect(anyText('large_letter')).toBe('matched');
		expect(anyText('small letter')).toBe('none');
		const big = add({ sender_name: 'Grandma', mail_type: 'large_letter' });
		const { items: out } = await fileByRules([await env.webhookItem(big.id)], {
			rules: { rule: [{ value: 'large letter', folder: byName('Big') }] },
		});
		expect(out[0].json).toMatchObject({
			matched_rule: 1,
			decision: 'Filed into "Big" (folder created)',
		});
	});
});
