// Operations of the scan resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import { describe, expect, test } from 'vitest';
import nock from 'nock';
import * as F from '../../../support/fixtures.mjs';
import { runNode } from '../../../harness/n8n-core-harness.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();
const scanId = F.scan(1).id;

operationCases('scan operations send the exact request and output the API object', mock, [
	{
		name: 'scan get',
		parameters: { resource: 'scan', operation: 'get', scanId: F.scan(1).id },
		request: ['GET', `/v1/scans/${F.scan(1).id}`],
		reply: F.scan(1),
	},
	{
		name: 'scan cancel',
		parameters: { resource: 'scan', operation: 'cancel', scanId: F.scan(2).id },
		request: ['POST', `/v1/scans/${F.scan(2).id}/cancel`],
		reply: F.scan(2, { status: 'CANCELLED' }),
	},
	{
		name: 'scan getSummary',
		parameters: { resource: 'scan', operation: 'getSummary', scanId: F.scan(3).id },
		request: ['GET', `/v1/scans/${F.scan(3).id}/summary`],
		reply: { label: 'Electric bill', summary: ['Due 12 Dec', 'Amount $84.20'] },
	},
	{
		name: 'scan complete (sandbox) with label and summary',
		parameters: {
			resource: 'scan',
			operation: 'complete',
			scanId: F.scan(4).id,
			additionalFields: { label: 'Tax form', summary: ['Form 1099', 'Year 2026'] },
		},
		request: [
			'POST',
			`/v1/sandbox/scans/${F.scan(4).id}/complete`,
			{ label: 'Tax form', summary: ['Form 1099', 'Year 2026'] },
		],
		reply: F.scan(4, { status: 'COMPLETED', label: 'Tax form' }),
	},
	{
		// Nothing to send: n8n's HTTP helper omits an empty JSON body; the spec makes every field optional.
		name: 'scan complete (sandbox) with no fields',
		parameters: { resource: 'scan', operation: 'complete', scanId: F.scan(5).id },
		request: ['POST', `/v1/sandbox/scans/${F.scan(5).id}/complete`],
		reply: F.scan(5, { status: 'COMPLETED' }),
	},
	{
		name: 'scan create',
		parameters: {
			resource: 'scan',
			operation: 'create',
			mailId: '1001',
			type: 'open',
			additionalFields: { instruction: 'Only page 1', isExpedited: true },
		},
		request: [
			'POST',
			'/v1/scans',
			{ mail_id: '1001', type: 'open', instruction: 'Only page 1', is_expedited: true },
		],
		reply: F.scan(1, { type: 'UNBOXING_REQUEST', is_expedited: true }),
	},
	{
		// The SDK's ScansClient.delete returns the deleted scan.
		name: 'scan delete outputs the deleted scan',
		parameters: { resource: 'scan', operation: 'delete', scanId },
		request: ['DELETE', `/v1/scans/${scanId}`],
		reply: F.scan(1, { status: 'DELETED' }),
	},
	{
		name: 'scan delete tolerates an empty 204',
		parameters: { resource: 'scan', operation: 'delete', scanId },
		request: ['DELETE', `/v1/scans/${scanId}`],
		status: 204,
		reply: '',
		output: [{ id: scanId, deleted: true }],
	},
	{
		name: 'scan getAll with every filter: lists as repeated keys, one value each otherwise',
		parameters: {
			resource: 'scan',
			operation: 'getAll',
			limit: 10,
			filters: {
				status: ['completed', 'in_process'],
				type: ['open'],
				mailId: '1001',
				search: 'insurance',
				sort: 'oldest',
				scanned: 'month',
			},
		},
		request: [
			'GET',
			'/v1/scans',
			undefined,
			{
				limit: ['10'],
				status: ['completed', 'in_process'],
				type: ['open'],
				mail_id: ['1001'],
				search: ['insurance'],
				sort: ['oldest'],
				scanned: ['month'],
			},
		],
		reply: {
			data: [F.scan(1, { type: 'UNBOXING_REQUEST', status: 'COMPLETED' })],
			next_cursor: null,
			total_count: 1,
		},
		output: [F.scan(1, { type: 'UNBOXING_REQUEST', status: 'COMPLETED' })],
	},
]);

describe('scan getAll filters fail before any request when a value is not one the API takes', () => {
	for (const [filters, message] of [
		[
			{ status: ['done'] },
			/Status must be one of in_process, cancelled, rejected, completed, deleted, restoring; got "done"/,
		],
		[{ type: ['SCAN_REQUEST'] }, /Type must be one of scan, open/],
		[{ mailId: 'abc' }, /Mail ID must be a numeric string/],
		[{ sort: 'random' }, /Sort must be one of newest, oldest/],
		[{ scanned: 'day' }, /Scanned must be one of week, month, half_year, year/],
	]) {
		test(JSON.stringify(filters), async () => {
			const { error } = await runNode({
				parameters: { resource: 'scan', operation: 'getAll', filters },
			});
			expect(error?.message).toMatch(message);
			expect(mock.api.requests).toHaveLength(0);
		});
	}
});

describe('scan lists and files', () => {
	test('scan getAll pages through GET /v1/scans', async () => {
		const scans = Array.from({ length: 120 }, (_, n) => F.scan(n + 1));
		mock.api.serveList('/v1/scans', () => scans);
		const { items } = await runNode({
			parameters: { resource: 'scan', operation: 'getAll', returnAll: true },
		});
		expect(items).toHaveLength(120);
		// two pages, read once (Confirm List Unchanged is off by default)
		expect(mock.api.requests).toHaveLength(2);
	});
});

describe('scan download', () => {
	test('fetches the signed link at once and outputs the file as binary, never the link', async () => {
		const link = 'https://files.vmb.test/scans/abc.pdf?X-Signature=secret-sig';
		mock.api.on('GET', `/v1/scans/${scanId}/file`, {
			body: { url: link, expires_at: '2026-11-22T00:15:00Z' },
		});
		let authorization = 'not called';
		nock('https://files.vmb.test')
			.get('/scans/abc.pdf')
			.query(true)
			.reply(function () {
				authorization = this.req.headers.authorization;
				return [
					200,
					Buffer.from('%PDF-1.4 bytes'),
					{
						'content-type': 'application/pdf',
						'content-disposition': 'attachment; filename="2026-11 electric bill.pdf"',
					},
				];
			});
		const { items, error } = await runNode({
			parameters: { resource: 'scan', operation: 'download', scanId, binaryPropertyName: 'scan' },
		});
		expect(error).toBeUndefined();
		expect(authorization).toBeUndefined();
		expect(items[0].json).toEqual({
			scan_id: scanId,
			file_name: '2026-11 electric bill.pdf',
			mime_type: 'application/pdf',
			size: 14,
		});
		expect(items[0].binary.scan).toMatchObject({
			mimeType: 'application/pdf',
			fileName: '2026-11 electric bill.pdf',
		});
		expect(JSON.stringify(items)).not.toContain('secret-sig');
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});
	test("a scan that is not completed gives the API's 409", async () => {
		mock.api.on('GET', `/v1/scans/${scanId}/file`, {
			status: 409,
			body: F.problem(409, { detail: 'Scan is IN_PROCESS' }),
		});
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'download', scanId, binaryPropertyName: 'data' },
		});
		expect(error.message).toBe('Conflict: Scan is IN_PROCESS');
	});
});
