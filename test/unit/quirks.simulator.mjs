// The simulator the quirk tests run against (real HTTP on loopback), its quirks cleared before each
// test, and retries made fast (their waits, not their number or rules).
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist } from '../harness/n8n-core-harness.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const POLICY = { ...retryPolicy };

/** Registers the file's hooks; `sim` and `credentials` are set once they have run. */
export function quirkySimulator(mailbox = { count: 300, seed: 11 }) {
	const env = {
		sim: undefined,
		credentials: undefined,
		retryPolicy,
		/** The requests the simulator received for `method path` (path: exact, or a RegExp). */
		requestsTo: (method, path) =>
			env.sim.requests.filter(
				(r) =>
					r.method === method && (path instanceof RegExp ? path.test(r.path) : r.path === path),
			),
	};
	beforeAll(async () => {
		nock.restore();
		env.sim = await startSimulator(mailbox);
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
	beforeEach(() => {
		env.sim.reset(mailbox);
		Object.assign(retryPolicy, { baseDelayMs: 5, maxDelayMs: 20 });
	});
	afterEach(() => Object.assign(retryPolicy, POLICY));
	return env;
}
