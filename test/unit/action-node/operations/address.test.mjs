// Operations of the address resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import * as F from '../../../support/fixtures.mjs';
import { runNode } from '../../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();
const addressId = F.address(1).id;

operationCases('address operations send the exact request and output the API object', mock, [
	{
		name: 'address create',
		parameters: {
			resource: 'address',
			operation: 'create',
			type: 'deposit',
			name: 'Ada Lovelace',
			line1: '1 Main St',
			city: 'Springfield',
			state: 'IL',
			postalCode: '62701',
			country: 'US',
			phoneNumber: '+15555550100',
			additionalFields: { line2: 'Suite 2', taxId: 'TX-1' },
		},
		request: [
			'POST',
			'/v1/addresses',
			{
				type: 'deposit',
				name: 'Ada Lovelace',
				line1: '1 Main St',
				city: 'Springfield',
				state: 'IL',
				postal_code: '62701',
				country: 'US',
				phone_number: '+15555550100',
				line2: 'Suite 2',
				tax_id: 'TX-1',
			},
		],
		status: 201,
		reply: F.address(1, { type: 'deposit' }),
	},
	{
		name: 'address getAll by type',
		parameters: {
			resource: 'address',
			operation: 'getAll',
			limit: 5,
			filters: { type: 'deposit' },
		},
		request: ['GET', '/v1/addresses', undefined, { limit: ['5'], type: ['deposit'] }],
		reply: { data: [F.address(3, { type: 'deposit' })], next_cursor: null, total_count: 1 },
		output: [F.address(3, { type: 'deposit' })],
	},
	{
		name: 'address update moves it to the other type',
		parameters: {
			resource: 'address',
			operation: 'update',
			addressId,
			updateFields: { type: 'deposit', city: 'Chicago' },
		},
		request: ['PATCH', `/v1/addresses/${addressId}`, { city: 'Chicago', type: 'deposit' }],
		reply: F.address(1, { type: 'deposit', city: 'Chicago', is_default: false }),
	},
	{
		name: 'address setDefault (no body)',
		parameters: { resource: 'address', operation: 'setDefault', addressId },
		request: ['PATCH', `/v1/addresses/${addressId}/default`],
		reply: F.address(1, { is_default: true }),
	},
	{
		name: 'address getDefault',
		parameters: { resource: 'address', operation: 'getDefault', type: 'shipping' },
		request: ['GET', '/v1/addresses/default', undefined, { type: ['shipping'] }],
		reply: F.address(2),
	},
	{
		name: 'address get',
		parameters: { resource: 'address', operation: 'get', addressId },
		request: ['GET', `/v1/addresses/${addressId}`],
		reply: F.address(1),
	},
	{
		name: 'address update',
		parameters: {
			resource: 'address',
			operation: 'update',
			addressId,
			updateFields: { line2: 'Suite 9', phoneNumber: '+1555' },
		},
		request: ['PATCH', `/v1/addresses/${addressId}`, { line2: 'Suite 9', phone_number: '+1555' }],
		reply: F.address(1, { line2: 'Suite 9' }),
	},
	{
		name: 'address delete',
		parameters: { resource: 'address', operation: 'delete', addressId },
		request: ['DELETE', `/v1/addresses/${addressId}`],
		status: 204,
		reply: '',
		output: [{ id: addressId, deleted: true }],
	},
]);

describe('address beyond the single request', () => {
	test('unknown response fields pass through unchanged', async () => {
		mock.api.on('GET', `/v1/addresses/${addressId}`, {
			body: { ...F.address(1), brand_new_field: { nested: true } },
		});
		const { items } = await runNode({
			parameters: { resource: 'address', operation: 'get', addressId },
		});
		expect(items[0].json.brand_new_field).toEqual({ nested: true });
	});
	test('address getAll accepts a page envelope or a bare array', async () => {
		mock.api.on('GET', '/v1/addresses', { body: [F.address(1), F.address(2)] });
		const { items, error } = await runNode({
			parameters: { resource: 'address', operation: 'getAll', returnAll: true },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
	});
});

describe('address type values fail before any request', () => {
	for (const parameters of [
		{ resource: 'address', operation: 'getAll', filters: { type: 'home' } },
		{ resource: 'address', operation: 'update', addressId, updateFields: { type: 'home' } },
	]) {
		test(parameters.operation, async () => {
			const { error } = await runNode({ parameters });
			expect(error?.message).toMatch(/Type must be one of shipping, deposit; got "home"/);
			expect(mock.api.requests).toHaveLength(0);
		});
	}
});
