// The simulator File by Rules' tests run against (test/harness/simulator.mjs), and the ways those
// tests reach it beyond the fixture's own.
import { request } from '../../support/webhooks.mjs';
import { runNode, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

/** A folder given by name, as File by Rules' folder fields take it. */
export const byName = (value) => ({ __rl: true, mode: 'name', value });

/** Starts the file's simulator (the fixture's `sim`, `credentials`, `control`), with the ways below. */
export async function filingRulesSimulator() {
	const fixture = await simulatorForFile({ count: 30, seed: 5 });
	const { sim, credentials, control } = fixture;
	return {
		...fixture,
		add: fixture.arrive,
		mail: (id) => sim.db.mails.find((m) => m.id === id),
		folderNamed: (name) => sim.db.folders.filter((f) => f.name === name),
		calls: () => sim.requests.map((r) => `${r.method} ${r.path}`),
		writes: () =>
			sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
		/** Mail → File by Rules over `items`; `more` goes to runNode (continueOnFail…). */
		fileByRules: (items, parameters = {}, more = {}) =>
			runNode({
				parameters: { resource: 'mail', operation: 'applyRules', ...parameters },
				items,
				credentials,
				...more,
			}),
		/** Get Many's items of these mail items, read now, in the order of `ids`. */
		getMany: async (ids) => {
			const { items } = await runNode({
				parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: {} },
				credentials,
			});
			return ids.map((id) => items.find((item) => item.json.id === id)?.json);
		},
		/** The webhook trigger's item for a new-mail delivery of this mail item. */
		webhookItem: async (mailId, typeVersion = 2) => {
			const { payload } = await control('/deliver', { event: 'new-mail', id: mailId });
			const { result } = await runWebhook({
				parameters: { events: ['new-mail'], options: {} },
				request: request(payload, { secret: sim.webhookSecret }),
				credentials,
				typeVersion,
			});
			return result.workflowData[0][0].json;
		},
	};
}
