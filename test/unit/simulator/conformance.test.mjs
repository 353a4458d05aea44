// The conformance check itself (test/support/conformance.mjs) and its coverage: every operation of
// the action node names the SDK operations it sends, each of those has request and answer shapes,
// the simulator serves each of them, and together the node's operations cover the whole SDK.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import nock from 'nock';
import { OPERATIONS, SEED_MAIL_TYPES } from '../../support/schemas.mjs';
import { answerProblems, requestProblems, takeViolations } from '../../support/conformance.mjs';
import { startSimulator } from '../../simulator/server.mjs';
import * as F from '../../support/fixtures.mjs';

const require = createRequire(import.meta.url);
const ACTIONS = path.resolve(import.meta.dirname, '../../../dist/nodes/VirtualMailbox/actions');

/** resource.operation → the SDK operations (OPERATIONS keys) it may send. A new node operation needs its row here. */
const NODE_OPERATIONS = {
	'account.get': ['GET /v1/account'],
	'account.getMailingAddress': ['GET /v1/account/mailing-address'],
	'address.create': ['POST /v1/addresses'],
	'address.delete': ['DELETE /v1/addresses/{id}'],
	'address.get': ['GET /v1/addresses/{id}'],
	'address.getAll': ['GET /v1/addresses'],
	'address.getDefault': ['GET /v1/addresses/default'],
	'address.setDefault': ['PATCH /v1/addresses/{id}/default'],
	'address.update': ['PATCH /v1/addresses/{id}'],
	'bankAccount.create': ['POST /v1/bank-accounts'],
	'bankAccount.delete': ['DELETE /v1/bank-accounts/{id}'],
	'bankAccount.get': ['GET /v1/bank-accounts/{id}'],
	'bankAccount.getAll': ['GET /v1/bank-accounts'],
	'bankAccount.update': ['PATCH /v1/bank-accounts/{id}'],
	'folder.create': ['POST /v1/folders'],
	'folder.delete': ['GET /v1/folders', 'DELETE /v1/folders/{id}'],
	'folder.get': ['GET /v1/folders', 'GET /v1/folders/{id}'],
	'folder.getAll': ['GET /v1/folders'],
	'folder.update': ['GET /v1/folders', 'PATCH /v1/folders/{id}'],
	'mail.applyRules': [
		'GET /v1/mails/{id}',
		'GET /v1/scans/{id}/summary',
		'GET /v1/folders',
		'POST /v1/folders',
		'DELETE /v1/folders/{id}',
		'PATCH /v1/mails/{id}',
		'POST /v1/mails/{id}/archive',
	],
	'mail.archive': ['POST /v1/mails/{id}/archive'],
	'mail.discard': ['POST /v1/mails/{id}/discard'],
	'mail.get': ['GET /v1/mails/{id}'],
	'mail.getAll': ['GET /v1/mails', 'GET /v1/folders'],
	'mail.seedMailbox': ['POST /v1/sandbox/seed'],
	'mail.seedMailItem': ['POST /v1/sandbox/seed/mail'],
	'mail.unarchive': ['POST /v1/mails/{id}/unarchive'],
	'mail.undiscard': ['POST /v1/mails/{id}/undiscard'],
	'mail.update': [
		'PATCH /v1/mails/{id}',
		'GET /v1/folders',
		'POST /v1/folders',
		'DELETE /v1/folders/{id}',
	],
	'scan.cancel': ['POST /v1/scans/{id}/cancel'],
	'scan.complete': ['POST /v1/sandbox/scans/{id}/complete'],
	'scan.create': ['POST /v1/scans'],
	'scan.delete': ['DELETE /v1/scans/{id}'],
	'scan.download': ['GET /v1/scans/{id}/file'],
	'scan.get': ['GET /v1/scans/{id}'],
	'scan.getAll': ['GET /v1/scans'],
	'scan.getSummary': ['GET /v1/scans/{id}/summary'],
	'shipment.get': ['GET /v1/shipments/{id}'],
	'shipment.getAll': ['GET /v1/shipments'],
};

/** Every resource.operation the built node's router can run (each resource's `operations`). */
function nodeOperations() {
	const found = [];
	for (const resource of fs.readdirSync(ACTIONS)) {
		const dir = path.join(ACTIONS, resource);
		if (!fs.statSync(dir).isDirectory()) continue;
		const file = fs.readdirSync(dir).find((f) => f.endsWith('.resource.js'));
		for (const operation of Object.keys(require(path.join(dir, file)).operations))
			found.push(`${resource}.${operation}`);
	}
	return found.sort();
}

describe('coverage: no operation without its SDK shapes', () => {
	test('every operation of the node names the SDK operations it sends, and each has shapes', () => {
		expect(nodeOperations()).toEqual(Object.keys(NODE_OPERATIONS).sort());
		for (const [operation, keys] of Object.entries(NODE_OPERATIONS)) {
			for (const key of keys) expect(OPERATIONS[key], `${operation} → ${key}`).toBeDefined();
		}
	});
	test("together the node's operations cover every operation of the SDK", () => {
		const used = new Set(Object.values(NODE_OPERATIONS).flat());
		expect(Object.keys(OPERATIONS).filter((key) => !used.has(key))).toEqual([]);
	});
	test('the simulator serves every SDK operation and refuses a route without shapes', async () => {
		nock.restore();
		const sim = await startSimulator({ count: 20, seed: 3 });
		try {
			for (const key of Object.keys(OPERATIONS)) {
				const [method, template] = key.split(' ');
				const response = await fetch(`${sim.url}${template.replace('{id}', 'x-1')}`, {
					method,
					headers: { authorization: `Bearer ${sim.apiKey}`, 'x-conformance': 'off' },
				});
				// 404 "No endpoint" means no route; any other answer (even 404 for the id) means one.
				const body = response.status === 204 ? undefined : await response.json();
				expect(body?.detail ?? '', key).not.toMatch(/^No endpoint|is not supported on/);
			}
		} finally {
			await sim.close();
			nock.activate();
		}
	});
});

describe('the check finds what differs from the SDK', () => {
	test('requests: unknown and bracketed query names, comma lists, repeated single values, body fields', () => {
		expect(
			requestProblems({
				method: 'GET',
				path: '/v1/scans',
				query: {
					status: ['completed', 'in_process'],
					type: ['open'],
					sort: ['oldest'],
					scanned: ['week'],
					mail_id: ['1'],
					search: ['x'],
					limit: ['100'],
				},
			}),
		).toEqual([]);
		expect(
			requestProblems({
				method: 'GET',
				path: '/v1/scans',
				query: { 'status[]': ['completed'] },
			}).join(),
		).toMatch(/without brackets/);
		expect(
			requestProblems({
				method: 'GET',
				path: '/v1/mails',
				query: { status: ['inbox,archived'] },
			}).join(),
		).toMatch(/status=inbox,archived/);
		expect(
			requestProblems({
				method: 'GET',
				path: '/v1/mails',
				query: { sort: ['newest', 'oldest'] },
			}).join(),
		).toMatch(/takes one value/);
		expect(
			requestProblems({ method: 'GET', path: '/v1/addresses/default', query: {} }).join(),
		).toMatch(/"type" is required/);
		expect(
			requestProblems({ method: 'PATCH', path: '/v1/addresses/abc', body: { type: 'deposit' } }),
		).toEqual([]);
		expect(
			requestProblems({
				method: 'PATCH',
				path: '/v1/mails/1',
				body: '{"is_read":true,"folder":"1"}',
			}).join(),
		).toMatch(/folder/);
		expect(
			requestProblems({
				method: 'POST',
				path: '/v1/scans/abc/cancel',
				body: { reason: 'x' },
			}).join(),
		).toMatch(/sends no body/);
		expect(requestProblems({ method: 'POST', path: '/v1/scans/abc/cancel', body: {} })).toEqual([]);
		expect(
			requestProblems({
				method: 'POST',
				path: '/v1/sandbox/seed/mail',
				body: { mail_type: 'large_letter' },
			}).join(),
		).toMatch(/mail_type/);
		expect(requestProblems({ method: 'PUT', path: '/v1/mails/1' }).join()).toMatch(
			/no operation of the SDK/,
		);
	});
	test('answers: a missing required field, a field the SDK does not declare, the wrong container, content where there is none', () => {
		const { is_expedited: _missing, ...withoutRequired } = F.scan(1);
		expect(answerProblems('GET', '/v1/scans/x', 200, F.scan(1))).toEqual([]);
		expect(answerProblems('GET', '/v1/scans/x', 200, withoutRequired).join()).toMatch(
			/is_expedited/,
		);
		expect(
			answerProblems('GET', '/v1/shipments', 200, {
				data: [F.shipment(1)],
				next_cursor: null,
				total_count: 1,
			}).join(),
		).toMatch(/Unrecognized key.*mail_items/);
		expect(answerProblems('GET', '/v1/folders', 200, [F.folder(1)]).join()).toMatch(/object/);
		expect(answerProblems('DELETE', '/v1/folders/1', 204, undefined)).toEqual([]);
		expect(answerProblems('DELETE', '/v1/folders/1', 200, F.folder(1)).join()).toMatch(
			/no content/,
		);
		expect(answerProblems('GET', '/v1/mails/1', 404, { title: 'Not found' }).join()).toMatch(
			/problem details/,
		);
	});
	describe('the simulator records a wrong answer or request for the running test to fail', () => {
		let sim;
		beforeAll(async () => {
			nock.restore();
			sim = await startSimulator({ count: 20, seed: 3 });
		});
		afterAll(async () => {
			await sim.close();
			nock.activate();
		});
		test('an answer missing a required field, and a request with a bracketed list', async () => {
			const scan = sim.db.scans[0];
			delete scan.created_at;
			await fetch(`${sim.url}/v1/scans/${scan.id}`, {
				headers: { authorization: `Bearer ${sim.apiKey}` },
			});
			await fetch(`${sim.url}/v1/mails?status%5B%5D=inbox`, {
				headers: { authorization: `Bearer ${sim.apiKey}` },
			});
			const violations = takeViolations();
			expect(violations.join('\n')).toMatch(/simulator answer to GET \/v1\/scans\/.*created_at/);
			expect(violations.join('\n')).toMatch(
				/request GET \/v1\/mails\?status%5B%5D=inbox.*without brackets/,
			);
		});
	});
});

describe('request bodies: a field the SDK does not declare, inside a nested object', () => {
	test('POST /v1/sandbox/seed/mail with measurement.unit is flagged', () => {
		const body = {
			mail_type: 'LETTER',
			measurement: { width: 9, height: 4, length: 0.2, unit: 'in' },
		};
		expect(
			requestProblems({ method: 'POST', path: '/v1/sandbox/seed/mail', body }).join('\n'),
		).toMatch(/unit/);
	});
	test('(control) the same field at the top level is flagged', () => {
		expect(
			requestProblems({
				method: 'POST',
				path: '/v1/sandbox/seed/mail',
				body: { mail_type: 'LETTER', unit: 'in' },
			}).join('\n'),
		).toMatch(/unit/);
	});
});

test("the node's seed mail types are the SDK's (the node keeps its own copy)", () => {
	const { SEED_MAIL_TYPES: nodeTypes } = require(
		path.resolve(import.meta.dirname, '../../../dist/nodes/shared/constants.js'),
	);
	expect([...nodeTypes]).toEqual(SEED_MAIL_TYPES);
});
