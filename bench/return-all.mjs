// Figure 1's two contestants, shared by the timing (run.mjs) and the heap measurement (heap.mjs).
import { DEFAULT_CREDENTIALS, runNode } from '../test/harness/n8n-core-harness.mjs';

export const API_KEY = 'test_sk_simulator_full_access';

/** The baseline: the identical 100 requests with fetch, keeping every parsed item as the node must. */
export async function bareLoop(url) {
	let cursor;
	let bytes = 0;
	let requests = 0;
	const kept = [];
	do {
		const response = await fetch(
			`${url}/v1/mails?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
			{ headers: { authorization: `Bearer ${API_KEY}` } },
		);
		const text = await response.text();
		bytes += Buffer.byteLength(text);
		requests++;
		const page = JSON.parse(text);
		for (const item of page.data) kept.push(item);
		cursor = page.next_cursor;
	} while (cursor);
	return { items: kept, bytes, requests };
}

/**
 * n8n's floor: a minimal node making the same requests through httpRequestWithAuthentication, the
 * helper n8n's rules require of every community node, one after another.
 */
export async function helperLoop(url) {
	const floorType = {
		description: {
			displayName: 'Floor',
			name: 'bench.floor',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Floor' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'virtualMailboxApi', required: true }],
			properties: [],
		},
		async execute() {
			const out = [];
			let cursor;
			do {
				const page = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'virtualMailboxApi',
					{
						method: 'GET',
						url: `${url}/v1/mails?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
						json: true,
					},
				);
				for (const json of page.data) out.push({ json, pairedItem: { item: 0 } });
				cursor = page.next_cursor;
			} while (cursor);
			return [out];
		},
	};
	const credentials = { ...DEFAULT_CREDENTIALS, baseUrl: url, apiKey: API_KEY };
	return (
		await runNode({
			parameters: {},
			credentials,
			type: 'bench.floor',
			extraTypes: { 'bench.floor': floorType },
		})
	).items;
}

/** The action node's Mail → Get Many with Return All, run by n8n's own execution code. */
export async function nodeReturnAll(url, options = {}) {
	const credentials = { ...DEFAULT_CREDENTIALS, baseUrl: url, apiKey: API_KEY };
	const { items, error } = await runNode({
		parameters: { resource: 'mail', operation: 'getAll', returnAll: true, filters: {}, options },
		credentials,
	});
	if (error) throw error;
	return items;
}
