// Review #23: the AI-tool path: ID parameters set by the model through $fromAI, saved as a plain
// string (before the change) or inside a locator (what the editor writes now), still reach the API.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { readFileSync } from 'node:fs';
import { DEFAULT_CREDENTIALS, loadPackage, runNode } from '../harness/n8n-core-harness.mjs';
import { resetNock } from '../support/api.mjs';

const UUID = '3f1c2b9e-8a4d-4c1e-9f55-2b7c1d0e6a90';
let requests;
beforeEach(() => {
	resetNock();
	requests = [];
	for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
		nock(DEFAULT_CREDENTIALS.baseUrl).persist().intercept(() => true, method).reply(function (uri) {
			requests.push(`${method} ${uri.split('?')[0]}`);
			return [200, { id: '1' }];
		});
	}
});
afterEach(() => resetNock());

describe('$fromAI ids', () => {
	for (const [resource, operation, param, id, path] of [
		['mail', 'get', 'mailId', '100500', 'GET /v1/mails/100500'],
		['scan', 'get', 'scanId', UUID, `GET /v1/scans/${UUID}`],
		['shipment', 'get', 'shipmentId', UUID, `GET /v1/shipments/${UUID}`],
		['address', 'get', 'addressId', UUID, `GET /v1/addresses/${UUID}`],
		['bankAccount', 'get', 'bankAccountId', UUID, `GET /v1/bank-accounts/${UUID}`],
	]) {
		const expression = `={{ $fromAI('${param}', 'the id', 'string') }}`;
		for (const value of [expression, { __rl: true, mode: 'id', value: expression }]) {
			test(`${resource} → ${operation}: ${typeof value === 'string' ? 'plain' : 'locator'} $fromAI`, async () => {
				const { error } = await runNode({ parameters: { resource, operation, [param]: value }, items: [{ [param]: id }] });
				expect(error?.message).toBeUndefined();
				expect(requests).toEqual([path]);
			});
		}
	}
	test('the action node is still usable as a tool and its codex declares no AI subcategory', async () => {
		const { description } = (await loadPackage()).nodeTypes.virtualMailbox.type;
		expect(description.usableAsTool).toBe(true);
		const codex = JSON.parse(readFileSync(new URL('../../nodes/VirtualMailbox/VirtualMailbox.node.json', import.meta.url), 'utf8'));
		expect(codex.subcategories?.AI).toBeUndefined();
		expect(description.properties.find((p) => p.name === 'resource')).toBeDefined();
	});
});
