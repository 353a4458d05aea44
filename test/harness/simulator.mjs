// The simulator a unit test file runs the built nodes against (real HTTP on loopback), and the
// ways its tests reach it. `await simulatorForFile(mailbox)` at the top of a file starts it then,
// with nock out of its way, resets it to `mailbox` before each test and closes it after the file.
import { afterAll, afterEach, beforeEach } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runPoll } from './n8n-core-harness.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');

/** The credential of the simulator's account (its API key and webhook signing secret). */
export const credentialsFor = (sim) => ({
	...DEFAULT_CREDENTIALS,
	baseUrl: sim.url,
	apiKey: sim.apiKey,
	webhookSecret: sim.webhookSecret,
});

/**
 * `reset: false` keeps what each test changed for the next (the file's tests build on each other).
 * `fastRetries`: retry waits of a few ms in each test (their number and rules unchanged).
 */
export async function simulatorForFile(mailbox, { reset = true, fastRetries = false } = {}) {
	nock.restore();
	const sim = await startSimulator(mailbox);
	afterAll(async () => {
		await sim.close();
		if (!nock.isActive()) nock.activate();
	});
	if (reset) beforeEach(() => sim.reset(mailbox));
	if (fastRetries) {
		const shipped = { ...retryPolicy };
		beforeEach(() => Object.assign(retryPolicy, { baseDelayMs: 5, maxDelayMs: 20 }));
		afterEach(() => Object.assign(retryPolicy, shipped));
	}
	const control = async (path, body) =>
		await (
			await fetch(`${sim.url}/_control${path}`, {
				method: 'POST',
				body: JSON.stringify(body ?? {}),
			})
		).json();
	const credentials = credentialsFor(sim);
	return {
		sim,
		credentials,
		/** POST /_control<path> (a mailroom move, a fault, a delivery); its answer. */
		control,
		/** The ids GET /v1/mails lists for `search` (a query string), in the API's order. */
		apiOrder: async (search = '') =>
			await (await fetch(`${sim.url}/_control/query?${search}`)).json(),
		/** The requests the simulator received for `method path` (path: exact, or a RegExp). */
		requestsTo: (method, path) =>
			sim.requests.filter(
				(r) =>
					r.method === method && (path instanceof RegExp ? path.test(r.path) : r.path === path),
			),
		/**
		 * One Poll Trigger poll as n8n runs it, its static data through JSON as through n8n's database
		 * (`options` go to runPoll): its items, the state it saved and the requests it made.
		 */
		poll: async (parameters, saved = {}, options = {}) => {
			const before = sim.requests.length;
			const { result, staticData } = await runPoll({
				parameters,
				credentials,
				staticData: JSON.parse(JSON.stringify(saved)),
				...options,
			});
			return {
				items: result?.[0] ?? [],
				saved: JSON.parse(JSON.stringify(staticData)),
				requests: sim.requests.slice(before),
			};
		},
		/** Mail arriving in bulk: the mailroom's own move (what POST /_control/mail makes), no HTTP. */
		arrive: (fields) => sim.mailbox.addMail(fields),
	};
}
