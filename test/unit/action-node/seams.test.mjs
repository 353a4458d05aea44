// The action node where what it keeps meets what a user does around it, and the limits of what it
// reads: an answer too large to read, a credential edited between runs, a second account in one
// process. docs/seams.md cites these tests by title.
import { afterEach, describe, expect, test } from 'vitest';
import { dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const POLICY = { ...retryPolicy };

const { sim, credentials } = await simulatorForFile({ count: 30, seed: 3 });
const { sim: other, credentials: otherCredentials } = await simulatorForFile({
	count: 30,
	seed: 4,
});
afterEach(() => Object.assign(retryPolicy, POLICY));

const getMany = { resource: 'mail', operation: 'getAll', returnAll: false, limit: 50, filters: {} };

describe('API answers are read up to a size limit', () => {
	test('an answer larger than the limit fails with a clear error naming the request and the limit, once, not retried', async () => {
		Object.assign(retryPolicy, { maxAnswerBytes: 4 * 1024 });
		const before = sim.requests.length;
		const { items, error } = await runNode({ parameters: getMany, credentials });
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			"The Virtual Mailbox API's answer to GET /v1/mails is larger than 4 KB and was not read",
		);
		expect(error?.description).toMatch(/Base URL/);
		expect(sim.requests.slice(before)).toHaveLength(1);
	});

	test('the default limit (32 MB) reads every answer of the API', async () => {
		expect(retryPolicy.maxAnswerBytes).toBe(32 * 1024 * 1024);
		const { items, error } = await runNode({ parameters: getMany, credentials });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(30);
	});
});

describe('the credential edited or swapped between runs', () => {
	test('each run reads the credential: a run after the credential was pointed at another account asks that account only', async () => {
		await runNode({ parameters: getMany, credentials });
		const [before, otherBefore] = [sim.requests.length, other.requests.length];
		const second = await runNode({ parameters: getMany, credentials: otherCredentials });
		expect(second.error).toBeUndefined();
		expect(sim.requests.length - before, 'requests to the first account').toBe(0);
		expect(other.requests.slice(otherBefore).map((r) => r.path)).toEqual(['/v1/mails']);
		expect(second.credentialLoads).toBe(1);
	});
});

describe('pinned data', () => {
	test('a node with pinned data is not run in a manual execution: its pinned items go on, no request is sent', async () => {
		const before = sim.requests.length;
		const { items, error } = await runNode({
			parameters: getMany,
			credentials,
			pinData: { 'Virtual Mailbox': [{ json: { pinned: true } }] },
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ pinned: true }]);
		expect(sim.requests.length - before).toBe(0);
	});
});
