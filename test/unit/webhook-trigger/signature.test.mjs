import crypto from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';
import { PREVIOUS, SECRET, sign } from '../../support/webhooks.mjs';

const { verifySignature } = dist('nodes/VirtualMailboxTrigger/signature.js');
const NOW = 1_790_000_000_000;
const WINDOW = 5 * 60_000;
const BODY = Buffer.from('{"id":1001,"mail_status":"INBOX","sender_name":"City Utilities"}');
const check = (headers, raw = BODY, secrets = [SECRET, ''], now = NOW) =>
	verifySignature(headers, raw, secrets, now, WINDOW);
const signed = (options = {}) => sign(options.body ?? BODY, { timestamp: NOW, ...options }).headers;

describe('signature vectors computed with node:crypto', () => {
	test('a fixed vector: the exact HMAC of "<ts>.<body>"', () => {
		const expected = crypto
			.createHmac('sha256', SECRET)
			.update(Buffer.concat([Buffer.from(`${NOW}.`), BODY]))
			.digest('hex');
		expect(signed()['usgm-webhook-signature']).toBe(expected);
		expect(
			check({ 'usgm-webhook-signature': expected, 'usgm-webhook-timestamp': String(NOW) }),
		).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
	});
	test('valid with any service name before -Webhook-', () => {
		expect(check(signed({ service: 'SVC' })).ok).toBe(true);
		expect(check(signed({ service: 'Acme' })).ok).toBe(true);
	});
	test('one byte changed', () => {
		const changed = Buffer.from(BODY);
		changed[5] ^= 1;
		expect(check(signed(), changed)).toMatchObject({
			ok: false,
			reason: 'signature does not match',
		});
	});
	test('same JSON with other whitespace', () => {
		const spaced = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 2));
		expect(check(signed(), spaced).ok).toBe(false);
	});
	test('wrong secret', () => {
		expect(check(signed({ secret: 'whsec_other' })).ok).toBe(false);
	});
	test('previous secret is accepted during rotation; without it, not', () => {
		expect(check(signed({ secret: PREVIOUS }), BODY, [SECRET, PREVIOUS])).toMatchObject({
			ok: true,
			secretIndex: 1,
		});
		expect(check(signed({ secret: PREVIOUS }), BODY, [SECRET, '']).ok).toBe(false);
	});
	test('timestamp just inside and just outside the window, past and future', () => {
		for (const offset of [-WINDOW, WINDOW])
			expect(check(signed({ timestamp: NOW + offset })).ok).toBe(true);
		for (const offset of [-WINDOW - 1, WINDOW + 1]) {
			expect(check(signed({ timestamp: NOW + offset }))).toMatchObject({
				ok: false,
				reason: 'timestamp outside the tolerance window',
			});
		}
	});
	test('missing headers', () => {
		const h = signed();
		expect(check({ 'usgm-webhook-timestamp': h['usgm-webhook-timestamp'] }).ok).toBe(false);
		expect(check({ 'usgm-webhook-signature': h['usgm-webhook-signature'] }).ok).toBe(false);
		expect(check({}).ok).toBe(false);
	});
	test('duplicated headers', () => {
		const h = signed();
		const sig = h['usgm-webhook-signature'];
		expect(check({ ...h, 'usgm-webhook-signature': [sig, sig] }).ok).toBe(false);
		expect(check({ ...h, 'usgm-webhook-signature': `${sig}, ${sig}` }).ok).toBe(false);
		expect(check({ ...h, 'svc-webhook-signature': sig }).ok).toBe(false);
	});
	test('non-numeric timestamp', () => {
		expect(check({ ...signed(), 'usgm-webhook-timestamp': '2026-11-22T00:00:00Z' })).toMatchObject({
			ok: false,
			reason: 'timestamp is not a number of milliseconds',
		});
		expect(check({ ...signed(), 'usgm-webhook-timestamp': `${NOW}.5` }).ok).toBe(false);
	});
	test('signature of wrong length', () => {
		const sig = signed()['usgm-webhook-signature'];
		expect(check({ ...signed(), 'usgm-webhook-signature': sig.slice(0, 63) })).toMatchObject({
			reason: 'signature is not 64 hex characters',
		});
		expect(check({ ...signed(), 'usgm-webhook-signature': `${sig}00` }).ok).toBe(false);
		expect(check({ ...signed(), 'usgm-webhook-signature': `sha256=${sig}` }).ok).toBe(false);
	});
	test('empty body, signed and unsigned', () => {
		const empty = Buffer.alloc(0);
		expect(check(sign(empty, { timestamp: NOW }).headers, empty).ok).toBe(true);
		expect(check(signed(), empty).ok).toBe(false);
	});
	test('a 1 MB body', () => {
		const big = Buffer.from(JSON.stringify({ id: 1, message: 'x'.repeat(1024 * 1024) }));
		expect(check(sign(big, { timestamp: NOW }).headers, big).ok).toBe(true);
		const tampered = Buffer.from(big);
		tampered[big.length - 3] = 0x79;
		expect(check(sign(big, { timestamp: NOW }).headers, tampered).ok).toBe(false);
	});
	test('no secret configured, or no raw body: never verified, never throws', () => {
		expect(check(signed(), BODY, ['', ''])).toMatchObject({
			ok: false,
			reason: 'no webhook secret configured',
		});
		expect(verifySignature(signed(), undefined, [SECRET], NOW, WINDOW)).toMatchObject({
			ok: false,
			reason: 'raw body unavailable',
		});
		expect(verifySignature(null, BODY, [SECRET], NOW, WINDOW).ok).toBe(false);
	});
});
