// Review #24: API bodies are now read as streams and parsed by parsedBody. Do they still come out
// as n8n's json:true gave them: gzip, a UTF-8 BOM, problem details, 204?
import zlib from 'node:zlib';
import { beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { resetNock, BASE } from '../support/api.mjs';
import { runNode } from '../harness/n8n-core-harness.mjs';

beforeEach(() => resetNock());
const account = { id: 'acc_1', name: 'Ünïcode Corp', email: 'a@b.example' };

describe('review #24: API bodies read as streams', () => {
	test('gzip-encoded JSON is decoded', async () => {
		nock(BASE).get('/v1/account').reply(200, zlib.gzipSync(JSON.stringify(account)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
		const { error, items } = await runNode({ parameters: { resource: 'account', operation: 'get' } });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject(account);
	});

	test('JSON with a UTF-8 byte-order mark is still parsed as JSON', async () => {
		nock(BASE).get('/v1/account').reply(200, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(account))]), { 'content-type': 'application/json' });
		const { error, items } = await runNode({ parameters: { resource: 'account', operation: 'get' } });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject(account);
	});

	test('problem details (application/problem+json) reach the error message', async () => {
		nock(BASE).get('/v1/account').reply(422, JSON.stringify({ type: 'about:blank', title: 'Bad thing', status: 422, detail: 'the detail text' }), { 'content-type': 'application/problem+json' });
		const { error } = await runNode({ parameters: { resource: 'account', operation: 'get' } });
		expect(`${error?.message} ${error?.description}`).toMatch(/the detail text|Bad thing/);
	});
});
