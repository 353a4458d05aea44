// Review of #25: requestProblems checks a body with `op.body.strict()`, which is strict at the top
// level only (answers use strictDeep). A field the SDK does not declare inside a nested object, the
// seed's measurement, passes the check, so a node could send it unnoticed.
import { describe, expect, test } from 'vitest';
import { requestProblems } from '../support/conformance.mjs';

describe('request bodies: a field the SDK does not declare, inside a nested object', () => {
	test('POST /v1/sandbox/seed/mail with measurement.unit is flagged', () => {
		const body = { mail_type: 'LETTER', measurement: { width: 9, height: 4, length: 0.2, unit: 'in' } };
		expect(requestProblems({ method: 'POST', path: '/v1/sandbox/seed/mail', body }).join('\n')).toMatch(/unit/);
	});
	test('(control) the same field at the top level is flagged', () => {
		expect(requestProblems({ method: 'POST', path: '/v1/sandbox/seed/mail', body: { mail_type: 'LETTER', unit: 'in' } }).join('\n')).toMatch(/unit/);
	});
});
