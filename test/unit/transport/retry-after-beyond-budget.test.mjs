// A 429 whose Retry-After asks for more time than a request may wait: the error names the wait
// the service asked for and whether any retry was made; never "retries ran out of time" when none
// ran. Retry-After values that are no seconds and no HTTP date (negative, garbage) count as absent.
import { describe, expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';

const env = await simulatorForFile({ count: 300, seed: 11 }, { fastRetries: true });
const mailGet = (mailId) =>
	runNode({
		parameters: { resource: 'mail', operation: 'get', mailId },
		credentials: env.credentials,
	});

describe('a Retry-After longer than the time a request may wait', () => {
	for (const [retryAfter, words] of [
		['86400', '24 h'],
		[() => new Date(Date.now() + 3 * 86_400_000).toUTCString(), '3 days'],
		['999999999999', 'years'],
	])
		test(`Retry-After ${typeof retryAfter === 'string' ? retryAfter : 'an HTTP date 3 days ahead'}: the wait is named as ${words}, no retry was made`, async () => {
			const id = env.sim.db.mails[0].id;
			const value = typeof retryAfter === 'string' ? retryAfter : retryAfter();
			env.sim.quirks.add({ kind: 'retryAfter', path: `/v1/mails/${id}`, retryAfter: value });
			const { error } = await mailGet(id);
			expect(error.httpCode).toBe('429');
			expect(error.description).toContain(
				`The API asked to wait ${words} (Retry-After: ${value.slice(0, 40)})`,
			);
			expect(error.description).toMatch(/no retry was made/);
			expect(error.description).not.toMatch(/ran out of time/);
			expect(env.requestsTo('GET', `/v1/mails/${id}`)).toHaveLength(1);
		});

	test('after a retry that was allowed, the error says how many ran', async () => {
		const id = env.sim.db.mails[0].id;
		env.sim.quirks.add({ kind: 'retryAfter', path: `/v1/mails/${id}`, retryAfter: '0', count: 1 });
		env.sim.quirks.add({ kind: 'retryAfter', path: `/v1/mails/${id}`, retryAfter: '7200' });
		const { error } = await mailGet(id);
		expect(error.description).toMatch(/asked to wait 2 h .* stopped after 1 retry\./);
		expect(env.requestsTo('GET', `/v1/mails/${id}`)).toHaveLength(2);
	});

	test('a write: named the same, and not said to be possibly done (a 429 is a refusal)', async () => {
		env.sim.quirks.add({
			kind: 'retryAfter',
			method: 'POST',
			path: '/v1/folders',
			retryAfter: '86400',
		});
		const { error } = await runNode({
			parameters: { resource: 'folder', operation: 'create', name: 'Rate limited folder' },
			credentials: env.credentials,
		});
		expect(error.description).toMatch(/asked to wait 24 h .*no retry was made/);
		expect(error.description).not.toMatch(/may already have acted/);
		expect(env.sim.db.folders.some((f) => f.name === 'Rate limited folder')).toBe(false);
	});
});

test('a negative or unreadable Retry-After counts as none: the request is retried after a backoff and succeeds', async () => {
	const id = env.sim.db.mails[0].id;
	env.sim.quirks.add({ kind: 'retryAfter', path: `/v1/mails/${id}`, retryAfter: '-3', count: 1 });
	env.sim.quirks.add({ kind: 'retryAfter', path: `/v1/mails/${id}`, retryAfter: 'soon', count: 1 });
	const { items, error } = await mailGet(id);
	expect(error).toBeUndefined();
	expect(items[0].json.id).toBe(id);
	expect(env.requestsTo('GET', `/v1/mails/${id}`)).toHaveLength(3);
});
