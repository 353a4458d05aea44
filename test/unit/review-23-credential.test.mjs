// Review #23: the credential test and the nodes take a custom Base URL the same way, also for odd
// spellings: a Base URL the connection test accepts must work in the nodes.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { DEFAULT_CREDENTIALS, loadPackage, runNode } from '../harness/n8n-core-harness.mjs';
import { resetNock } from '../support/api.mjs';

const { Workflow } = await import('n8n-workflow');
beforeEach(() => resetNock());
afterEach(() => resetNock());

function evaluate(expression, credentials) {
	const workflow = new Workflow({ nodes: [], connections: {}, active: false, nodeTypes: { getByName: () => undefined, getByNameAndVersion: () => undefined, getKnownTypes: () => ({}) } });
	const node = { id: 'n', name: 'n', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} };
	return workflow.expression.getSimpleParameterValue(node, expression, 'internal', { $credentials: credentials }, undefined, '');
}

describe('credential test vs the nodes, odd Base URLs', () => {
	for (const baseUrl of ['HTTP://vmb.test', 'Http://vmb.test/v1/', 'http://VMB.test:80/v1', ' http://vmb.test/v1 ', 'http://vmb.test/V1//']) {
		test(`"${baseUrl}": the URL the connection test calls is the URL Account → Get calls`, async () => {
			const type = (await loadPackage()).credentialTypes.virtualMailboxApi.type;
			const credentials = { ...DEFAULT_CREDENTIALS, baseUrl };
			const tested = new URL(`${evaluate(type.test.request.baseURL, credentials)}${type.test.request.url}`).href;
			expect(tested).toBe('http://vmb.test/v1/account');
			const seen = [];
			nock('http://vmb.test').get('/v1/account').reply(200, () => (seen.push('GET /v1/account'), { id: 'acct' }));
			const { error } = await runNode({ parameters: { resource: 'account', operation: 'get' }, credentials });
			expect(error?.message).toBeUndefined();
			expect(seen).toEqual(['GET /v1/account']);
		});
	}
});
