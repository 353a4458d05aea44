import { createHmac, timingSafeEqual } from 'crypto';

export type HeaderMap = Record<string, string | string[] | undefined>;

export type Verification =
	| { ok: true; timestamp: number; secretIndex: number }
	| { ok: false; reason: string };

const SIGNATURE_SUFFIX = '-webhook-signature';
const TIMESTAMP_SUFFIX = '-webhook-timestamp';

/**
 * The one header whose name ends with `suffix` (the service name before it is not fixed: USGM
 * in production). Missing, several such headers, or a repeated one (an array, or values Node
 * joined with ", ") make the delivery unverifiable.
 */
function single(headers: HeaderMap, suffix: string): string | { error: string } {
	const names = Object.keys(headers).filter((name) => name.toLowerCase().endsWith(suffix));
	if (names.length === 0) return { error: `missing *${suffix} header` };
	if (names.length > 1) return { error: `more than one *${suffix} header` };
	const value = headers[names[0]];
	if (Array.isArray(value)) return value.length === 1 ? value[0] : { error: `repeated ${names[0]} header` };
	if (typeof value !== 'string' || value.includes(',')) return { error: `repeated or empty ${names[0]} header` };
	return value.trim();
}

/**
 * Pure: check a delivery's signature. Signed string = `<timestamp>.<raw body bytes>`, HMAC-SHA256
 * with the webhook secret, hex; compared in constant time; any of `secrets` (current, previous)
 * may match; the timestamp (ms) must be within `toleranceMs` of `now` either way. Never throws.
 */
export function verifySignature(
	headers: HeaderMap,
	rawBody: Buffer | undefined,
	secrets: readonly string[],
	now: number,
	toleranceMs: number,
): Verification {
	try {
		const usable = secrets.filter((secret) => typeof secret === 'string' && secret.length > 0);
		if (usable.length === 0) return { ok: false, reason: 'no webhook secret configured' };
		if (!Buffer.isBuffer(rawBody)) return { ok: false, reason: 'raw body unavailable' };
		const signature = single(headers, SIGNATURE_SUFFIX);
		if (typeof signature !== 'string') return { ok: false, reason: signature.error };
		const stamp = single(headers, TIMESTAMP_SUFFIX);
		if (typeof stamp !== 'string') return { ok: false, reason: stamp.error };
		if (!/^\d{1,16}$/.test(stamp)) return { ok: false, reason: 'timestamp is not a number of milliseconds' };
		const timestamp = Number(stamp);
		if (Math.abs(now - timestamp) > toleranceMs) return { ok: false, reason: 'timestamp outside the tolerance window' };
		if (!/^[0-9a-fA-F]{64}$/.test(signature)) return { ok: false, reason: 'signature is not 64 hex characters' };
		const given = Buffer.from(signature, 'hex');
		const signed = Buffer.concat([Buffer.from(`${stamp}.`, 'utf8'), rawBody]);
		let match = -1;
		// Check every secret (no early exit) so timing does not reveal which one matched.
		usable.forEach((secret, index) => {
			const expected = createHmac('sha256', secret).update(signed).digest();
			if (timingSafeEqual(expected, given) && match === -1) match = index;
		});
		return match === -1 ? { ok: false, reason: 'signature does not match' } : { ok: true, timestamp, secretIndex: match };
	} catch {
		return { ok: false, reason: 'signature could not be checked' };
	}
}
