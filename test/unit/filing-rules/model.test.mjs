// File by Rules against a model: random mailboxes (mail filed or not, read or not, archived or in
// the inbox or quarantine), random rules (mark read, archive), Preview Only random per item, and
// input items read now or older than the mailbox. An oracle says each item's end state and what
// its output must say; a second run over Get Many read again must write nothing and say
// "already" for every action. A failure prints its seed (VMB_SEED=<seed> repeats it).
import { describe, expect, test } from 'vitest';
import { rng } from '../../simulator/data.mjs';
import { byName, filingRulesSimulator } from './simulator.mjs';

const env = await filingRulesSimulator();
const { getMany } = env;
const SEED = Number(process.env.VMB_SEED ?? Date.now() % 1_000_000);
const ROUNDS = 6;

const fileByRules = (items, parameters) =>
	env.fileByRules(items, parameters, { continueOnFail: true });

describe(`File by Rules against a model (seed ${SEED})`, () => {
	test('random mailboxes, rules and previews: the end state and outputs the oracle gives; a second run writes nothing and says already', async () => {
		const next = rng(SEED);
		const pick = (list) => list[Math.floor(next() * list.length)];
		for (let round = 0; round < ROUNDS; round++) {
			const where = `seed ${SEED}, round ${round}`;
			env.sim.reset({ count: 30, seed: 5 });
			const taxes = env.sim.db.folders.find((f) => f.name === 'Taxes').id;
			const rules = [
				{ sender: 'IRS', folder: 'Taxes', markRead: next() < 0.5, archive: next() < 0.6 },
				{
					sender: 'Wired',
					folder: `Magazines ${round}`,
					markRead: next() < 0.5,
					archive: next() < 0.5,
				},
			];
			const mails = Array.from({ length: 4 + Math.floor(next() * 4) }, () =>
				env.add({
					sender_name: pick(['IRS Ogden', 'Wired', 'Grandma']),
					mail_status: pick(['inbox', 'inbox', 'archived', 'quarantine']),
				}),
			);
			for (const m of mails) {
				m.is_read = next() < 0.3;
				m.folder_id = next() < 0.3 ? taxes : null;
			}
			env.sim.changed();
			const ids = mails.map((m) => m.id);
			const fresh = await getMany(ids);
			// Items older than the mailbox: some mail archived, filed or read since they were read.
			const stale = next() < 0.5;
			if (stale)
				for (const m of mails) {
					if (m.mail_status === 'inbox' && next() < 0.4) m.mail_status = 'archived';
					if (next() < 0.3) m.folder_id = taxes;
				}
			env.sim.changed();
			const items = fresh.map((m) => ({ ...m, try: next() < 0.3 }));
			const before = new Map(mails.map((m) => [m.id, { ...m }]));
			const parameters = {
				rules: {
					rule: rules.map((r) => ({
						field: 'sender',
						value: r.sender,
						folder: byName(r.folder),
						markRead: r.markRead,
						archive: r.archive,
					})),
				},
				previewOnly: '={{ $json.try }}',
			};

			const { items: out } = await fileByRules(items, parameters);
			const folderOf = (name) => env.sim.db.folders.find((f) => f.name === name)?.id;
			items.forEach((item, k) => {
				const at = `${where}, item ${k} (${item.sender_name}, ${before.get(item.id).mail_status}${item.try ? ', preview' : ''})`;
				const now = env.sim.db.mails.find((m) => m.id === item.id);
				const was = before.get(item.id);
				const rule = rules.find((r) => item.sender_name.includes(r.sender));
				const json = out[k].json;
				if (!rule || item.try) {
					expect([now.folder_id, now.is_read, now.mail_status], at).toEqual([
						was.folder_id,
						was.is_read,
						was.mail_status,
					]);
					if (rule) {
						// The preview speaks of the state the item says.
						expect(json.already_archived, at).toBe(rule.archive && item.mail_status === 'archived');
						expect(json.already_in_folder, at).toBe(
							item.folder_id !== null && item.folder_id === folderOf(rule.folder),
						);
						expect([json.folder_created, json.archived, json.marked_read], at).toEqual([
							false,
							false,
							false,
						]);
					}
					return;
				}
				const refused = rule.archive && was.mail_status === 'quarantine';
				expect(now.folder_id, at).toBe(folderOf(rule.folder));
				expect(now.is_read, at).toBe(was.is_read || rule.markRead);
				expect(now.mail_status, at).toBe(rule.archive && !refused ? 'archived' : was.mail_status);
				if (refused) {
					expect(json.error, at).toMatch(/^Rule \d \(archive\): /);
					return;
				}
				expect(json.error, at).toBeUndefined();
				expect(json.already_archived, at).toBe(rule.archive && was.mail_status === 'archived');
				expect(json.archived, at).toBe(rule.archive && was.mail_status === 'inbox');
			});

			// Every item real over Get Many read now, then once more: the second has nothing left to do
			// (an archive the API refuses for mail in quarantine is tried and refused again).
			const real = { ...parameters, previewOnly: false };
			await fileByRules(await getMany(ids), real);
			const after = JSON.stringify(env.sim.db.mails);
			env.sim.requests.length = 0;
			const again = await fileByRules(await getMany(ids), real);
			const quarantined = new Set(
				mails.filter((m) => m.mail_status === 'quarantine').map((m) => m.id),
			);
			expect(
				env.sim.requests
					.filter((r) => r.method !== 'GET')
					.filter((r) => !(r.path.endsWith('/archive') && quarantined.has(r.path.split('/')[3])))
					.map((r) => `${r.method} ${r.path}`),
				where,
			).toEqual([]);
			expect(JSON.stringify(env.sim.db.mails), where).toBe(after);
			again.items.forEach(({ json }, k) => {
				const rule = rules.find((r) => items[k].sender_name.includes(r.sender));
				if (!rule) return;
				const at = `${where}, run again, item ${k}`;
				if (rule.archive && quarantined.has(items[k].id)) {
					expect(json.error, at).toMatch(/^Rule \d \(archive\): /);
					return;
				}
				expect([json.already_in_folder, json.already_read, json.already_archived], at).toEqual([
					true,
					rule.markRead,
					rule.archive,
				]);
				expect(json.decision, at).toMatch(/^Already in /);
			});
		}
	}, 120_000);
});
