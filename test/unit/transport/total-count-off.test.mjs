// A total_count that disagrees with the items its pages list, the same on every page, nothing
// changing: Return All gives the same outcome whatever Max Parallel Requests is. The list is read
// a second time; when both reads list the same items under the same count, the count is the API's
// mistake, not a change: every listed item is returned, with a warning in the run's hints.
import { expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { runNode } from '../../harness/n8n-core-harness.mjs';

const env = await simulatorForFile({ count: 251, seed: 37 }, { fastRetries: true });
const apiOrder = async () => (await fetch(`${env.sim.url}/_control/query?sort=newest`)).json();

const returnAll = async (maxParallelRequests) => {
	const { items, error, run } = await runNode({
		parameters: {
			resource: 'mail',
			operation: 'getAll',
			returnAll: true,
			filters: {},
			options: { maxParallelRequests },
		},
		credentials: env.credentials,
	});
	const hints = run?.data.resultData.runData['Virtual Mailbox']?.[0]?.hints ?? [];
	return { ids: items.map((i) => i.json.id), error, hints: hints.map((h) => h.message) };
};

for (const by of [1, 3])
	test(`total_count ${by} more than the 251 items listed, on every page: Max Parallel Requests 1 and 6 both return all 251, once each, and warn`, async () => {
		env.sim.quirks.add({ kind: 'totalCount', path: /^\/v1\/mails$/, by });
		const truth = await apiOrder();
		expect(truth).toHaveLength(251);
		for (const parallel of [1, 6]) {
			env.sim.requests.length = 0;
			const { ids, error, hints } = await returnAll(parallel);
			expect(error, `Max Parallel Requests ${parallel}`).toBeUndefined();
			expect(ids).toEqual(truth);
			expect(hints).toEqual([
				expect.stringContaining(
					`total_count says ${251 + by} but its pages list 251 items, the same in two reads in a row`,
				),
			]);
		}
	});

test('a count that is right gives no warning and no second read', async () => {
	const { ids, error, hints } = await returnAll(1);
	expect(error).toBeUndefined();
	expect(ids).toEqual(await apiOrder());
	expect(hints).toEqual([]);
	expect(env.sim.requests.filter((r) => r.path === '/v1/mails')).toHaveLength(3);
});

for (const count of [201, 251])
	test(`total_count 1 less than the ${count} items listed, on every page: Max Parallel Requests 1 and 6 both return all ${count}, once each, and warn`, async () => {
		env.sim.reset({ count, seed: 37 });
		env.sim.quirks.add({ kind: 'totalCount', path: /^\/v1\/mails$/, by: -1 });
		const truth = await apiOrder();
		expect(truth).toHaveLength(count);
		for (const parallel of [1, 6]) {
			const { ids, error, hints } = await returnAll(parallel);
			expect(error, `Max Parallel Requests ${parallel}`).toBeUndefined();
			expect(ids, `Max Parallel Requests ${parallel}`).toEqual(truth);
			expect(hints).toEqual([
				expect.stringContaining(`total_count says ${count - 1} but its pages list ${count} items`),
			]);
		}
	});
