// A write answered by a gateway error (502, 503, 504, HTML or JSON) after it reached the service
// may have been done: the error says so and names where to check before running again. It is
// never retried. A refusal (4xx) proves it was not done and says nothing of the kind.
import { describe, expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { byName } from '../filing-rules/simulator.mjs';

const env = await simulatorForFile({ count: 300, seed: 11 }, { fastRetries: true });
const letter = () => env.sim.db.mails.find((m) => m.mail_type === 'letter' && !m.scan);

describe('a gateway error after the write reached the service', () => {
	for (const [status, body] of [
		[502, 'html'],
		[504, 'json'],
	])
		test(`Scan → Create answered ${status} (${body}): the scan exists, the error says it may and where to look, no second request`, async () => {
			const mail = letter();
			env.sim.quirks.add({ kind: 'gateway', method: 'POST', path: '/v1/scans', status, body });
			const { items, error } = await runNode({
				parameters: { resource: 'scan', operation: 'create', mailId: mail.id, type: 'scan' },
				credentials: env.credentials,
			});
			expect(items).toHaveLength(0);
			expect(error.httpCode).toBe(String(status));
			expect(error.description).toMatch(
				/^Not retried: the service may already have acted on POST \/v1\/scans\. Check first \(list the mail item's scans \(Scan → Get Many, Mail ID filter\)\) before running it again/,
			);
			expect(env.requestsTo('POST', '/v1/scans')).toHaveLength(1);
			// It was done: the oracle is the simulator's own state.
			expect(env.sim.db.scans.filter((s) => s.mail_id === mail.id)).toHaveLength(1);
		});

	test('Mail → Update answered 503: the error says it may have been done and to get the mail item', async () => {
		const mail = env.sim.db.mails[0];
		env.sim.quirks.add({ kind: 'gateway', method: 'PATCH', status: 503 });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: mail.id,
				updateFields: { isRead: true },
			},
			credentials: env.credentials,
		});
		expect(error.description).toMatch(
			/may already have acted on PATCH \/v1\/mails\/\d+\. Check first \(get the mail item \(Mail → Get\)\)/,
		);
		expect(env.requestsTo('PATCH', `/v1/mails/${mail.id}`)).toHaveLength(1);
	});

	test('File by Rules: the archive fails after the filing: the error says the item was filed, and that the archive may have been done', async () => {
		const mail = env.sim.mailbox.addMail({ sender_name: 'IRS Ogden', mail_type: 'letter' });
		env.sim.quirks.add({ kind: 'gateway', method: 'POST', path: /\/archive$/, status: 502 });
		const { error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'applyRules',
				rules: {
					rule: [
						{
							field: 'sender',
							comparison: 'contains',
							value: 'IRS',
							folder: byName('Taxes'),
							archive: true,
						},
					],
				},
			},
			items: [{ id: mail.id, sender_name: 'IRS Ogden', mail_type: 'letter' }],
			credentials: env.credentials,
		});
		expect(error.message).toMatch(
			/^Rule 1 \(archive\): the mail item was filed into "Taxes", then archiving failed: /,
		);
		expect(error.description).toMatch(/may already have acted on POST \/v1\/mails\/\d+\/archive/);
		const taxes = env.sim.db.folders.find((f) => f.name === 'Taxes');
		expect(env.sim.db.mails.find((m) => m.id === mail.id)).toMatchObject({
			folder_id: taxes.id,
			mail_status: 'archived',
		});
	});
});

test('a refusal (404) proves the write was not done: no "may already have acted"', async () => {
	const { error } = await runNode({
		parameters: {
			resource: 'mail',
			operation: 'update',
			mailId: '999999',
			updateFields: { isRead: true },
		},
		credentials: env.credentials,
	});
	expect(error.httpCode).toBe('404');
	expect(error.description).not.toMatch(/may already have acted/);
});
