// The simulator File by Rules' tests run against (real HTTP on loopback): one per test file,
// reset before each test, and the ways those tests reach it.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { request } from '../support/webhooks.mjs';
import { DEFAULT_CREDENTIALS, runWebhook } from '../harness/n8n-core-harness.mjs';

const MAILBOX = { count: 30, seed: 5 };

/** A folder given by name, as File by Rules' folder fields take it. */
export const byName = (value) => ({ __rl: true, mode: 'name', value });

/** Registers the file's hooks; `sim` and `credentials` are set once they have run. */
export function filingRulesSimulator() {
	const env = {
		sim: undefined,
		credentials: undefined,
		control: async (url, body) =>
			await (
				await fetch(`${env.sim.url}/_control${url}`, {
					method: 'POST',
					body: JSON.stringify(body ?? {}),
				})
			).json(),
		add: (fields) => env.sim.mailbox.addMail(fields),
		calls: () => env.sim.requests.map((r) => `${r.method} ${r.path}`),
		/** The webhook trigger's item for a new-mail delivery of this mail item. */
		webhookItem: async (mailId, typeVersion = 2) => {
			const { payload } = await env.control('/deliver', { event: 'new-mail', id: mailId });
			const { result } = await runWebhook({
				parameters: { events: ['new-mail'], options: {} },
				request: request(payload, { secret: env.sim.webhookSecret }),
				credentials: env.credentials,
				typeVersion,
			});
			return result.workflowData[0][0].json;
		},
	};
	beforeAll(async () => {
		nock.restore();
		env.sim = await startSimulator(MAILBOX);
		env.credentials = {
			...DEFAULT_CREDENTIALS,
			baseUrl: env.sim.url,
			apiKey: env.sim.apiKey,
			webhookSecret: env.sim.webhookSecret,
		};
	});
	afterAll(async () => {
		await env.sim?.close();
		nock.activate();
	});
	beforeEach(() => env.sim.reset(MAILBOX));
	return env;
}
