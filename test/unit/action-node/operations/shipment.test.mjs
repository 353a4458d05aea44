// Operations of the shipment resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { runNode } from '../../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();

operationCases('shipment operations send the exact request and output the API object', mock, [
	{
		name: 'shipment get',
		parameters: { resource: 'shipment', operation: 'get', shipmentId: F.shipment(1).id },
		request: ['GET', `/v1/shipments/${F.shipment(1).id}`],
		reply: F.shipment(1),
	},
]);

describe('shipment getAll', () => {
	test('shipment getAll sends type and status filters as repeated keys', async () => {
		mock.api.serveList('/v1/shipments', () => [F.shipment(1), F.shipment(2)]);
		const { items } = await runNode({
			parameters: {
				resource: 'shipment',
				operation: 'getAll',
				returnAll: false,
				limit: 10,
				filters: { type: ['shipment', 'pickup'], status: ['shipped'] },
			},
		});
		expect(items).toHaveLength(2);
		expect(mock.api.requests[0].search).toBe('?type=shipment&type=pickup&status=shipped&limit=10');
	});
});
