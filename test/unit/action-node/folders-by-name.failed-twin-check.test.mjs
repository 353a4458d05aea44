// Folders by name when the look for a twin after creating a folder fails: the folder exists, so
// the later items of the same execution file into it instead of creating a second one.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const POLICY = { ...retryPolicy };
const { sim, credentials, control } = await simulatorForFile({ count: 10, seed: 3 });
beforeEach(() => Object.assign(retryPolicy, { baseDelayMs: 1, maxDelayMs: 2, budgetMs: 100 }));
afterEach(() => Object.assign(retryPolicy, POLICY));

const byName = (value) => ({ __rl: true, mode: 'name', value });
/** Once a folder has been created, the folder list answers 503 until the test ends. */
const listFailsAfterCreation = () => {
	let created = false;
	sim.settings.onRequest = async (record) => {
		if (record.method === 'POST' && record.path === '/v1/folders') created = true;
		else if (created && record.method === 'GET' && record.path === '/v1/folders')
			await control('/faults', { path: '/v1/folders', method: 'GET', status: 503, count: 1 });
	};
};

describe('a folder created by an execution whose look for a twin failed', () => {
	test('Move to Folder with Continue On Fail: 3 items into a new folder by name create one folder, not three', async () => {
		const ids = sim.db.mails.slice(0, 3).map((m) => m.id);
		listFailsAfterCreation();
		const { items } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'update',
				mailId: '={{ $json.id }}',
				updateFields: { folderId: byName('Utilities') },
				options: {},
			},
			items: ids.map((id) => ({ id })),
			credentials,
			continueOnFail: true,
		});
		expect(items).toHaveLength(3);
		expect(
			sim.db.folders.filter((f) => f.name === 'Utilities'),
			'folders named "Utilities"',
		).toHaveLength(1);
	});

	test('File by Rules with Continue On Fail: 3 items filed into a new folder by name create one folder, not three', async () => {
		const ids = sim.db.mails.slice(0, 3).map((m) => m.id);
		listFailsAfterCreation();
		const rules = {
			rule: [
				{ field: 'anyText', comparison: 'matchesPattern', value: '.', folder: byName('Utilities') },
			],
		};
		const { items } = await runNode({
			parameters: { resource: 'mail', operation: 'applyRules', rules },
			items: ids.map((id) => ({
				id,
				sender_name: 'Utility Co',
				recipient_name: 'Ada',
				mail_type: 'letter',
				scan: null,
			})),
			credentials,
			continueOnFail: true,
		});
		expect(items).toHaveLength(3);
		expect(
			sim.db.folders.filter((f) => f.name === 'Utilities'),
			'folders named "Utilities"',
		).toHaveLength(1);
	});
});
