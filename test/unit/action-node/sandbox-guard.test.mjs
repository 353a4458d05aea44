// The sandbox operations refuse Production before any request: the Environment option, and also a
// Custom credential whose Base URL is the production server (a proxy, or a pasted URL).
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mockApi, resetNock } from '../../support/api.mjs';
import { DEFAULT_CREDENTIALS, runNode } from '../../harness/n8n-core-harness.mjs';

const PRODUCTION = 'https://api.usglobalmail.com';
const credentials = { ...DEFAULT_CREDENTIALS, environment: 'custom', baseUrl: `${PRODUCTION}/v1/` };
let api;
beforeEach(() => {
	resetNock();
	api = mockApi(PRODUCTION);
	api.on('POST', '/v1/sandbox/seed', { status: 201, body: { mail_ids: ['1'] } }, { persist: true });
	api.on(
		'POST',
		'/v1/sandbox/seed/mail',
		{ status: 201, body: { mail_id: '1' } },
		{ persist: true },
	);
});
afterEach(() => resetNock());

describe('sandbox operations with a Custom credential pointing at the production server', () => {
	for (const [operation, extra] of [
		['seedMailbox', {}],
		['seedMailItem', { seedMailType: 'LETTER' }],
	]) {
		test(`mail ${operation} is refused before any request`, async () => {
			const { error } = await runNode({
				parameters: { resource: 'mail', operation, ...extra },
				credentials,
			});
			expect(
				api.requests.map((r) => `${r.method} ${r.path}`),
				'requests sent to the production host',
			).toEqual([]);
			expect(error?.message).toMatch(/only works against the sandbox/);
		});
	}
	test('scan complete is refused before any request', async () => {
		api.on(
			'POST',
			'/v1/sandbox/scans/7c9e6679-7425-40de-944b-e07fc1f99ae7/complete',
			{ status: 200, body: {} },
			{ persist: true },
		);
		const { error } = await runNode({
			parameters: {
				resource: 'scan',
				operation: 'complete',
				scanId: '7c9e6679-7425-40de-944b-e07fc1f99ae7',
			},
			credentials,
		});
		expect(
			api.requests.map((r) => `${r.method} ${r.path}`),
			'requests sent to the production host',
		).toEqual([]);
		expect(error?.message).toMatch(/Complete \(Sandbox\) only works against the sandbox/);
	});
});

describe('the production host in any spelling DNS takes for it', () => {
	for (const baseUrl of [
		`${PRODUCTION}.`,
		`${PRODUCTION}./v1`,
		'https://API.UsGlobalMail.com.:443/',
		'https://api.usglobalmail.com..',
	]) {
		test(`a Custom Base URL of ${baseUrl} is the production server: seeding is refused before any request`, async () => {
			const dotted = mockApi(`${PRODUCTION}.`);
			dotted.on(
				'POST',
				'/v1/sandbox/seed',
				{ status: 201, body: { mail_ids: ['1'] } },
				{ persist: true },
			);
			const { error } = await runNode({
				parameters: { resource: 'mail', operation: 'seedMailbox' },
				credentials: { ...credentials, baseUrl },
			});
			expect(
				[...api.requests, ...dotted.requests].map((r) => `${r.method} ${r.path}`),
				'requests sent to the production host',
			).toEqual([]);
			expect(error?.message).toMatch(/only works against the sandbox/);
		});
	}
});
