import { createHmac, timingSafeEqual } from 'crypto';

export type HeaderMap = Record<string, string | string[] | undefined>;

export type Verification =
	| { ok: true; timestamp: number; secretIndex: number }
	| { ok: false; reason: string; secretMayHelp?: boolean };

const SIGNATURE_SUFFIX = '-webhook-signature';
const TIMESTAMP_SUFFIX = '-webhook-timestamp';

type Found = { value?: string; error?: string };

/**
 * The prefix of `-webhook-signature` and `-webhook-timestamp` is the service's name, not fixed.
 * Several such headers, or a repeated one, make the delivery unverifiable.
 */
function findHeaders(headers: HeaderMap): { signature: Found; timestamp: Found } {
	const signature: Found = {};
	const timestamp: Found = {};
	for (const name in headers) {
		const lower = name.toLowerCase();
		const slot = lower.endsWith(SIGNATURE_SUFFIX)
			? signature
			: lower.endsWith(TIMESTAMP_SUFFIX)
				? timestamp
				: undefined;
		if (!slot) continue;
		if (slot.value !== undefined || slot.error !== undefined) {
			slot.error = `more than one *${slot === signature ? SIGNATURE_SUFFIX : TIMESTAMP_SUFFIX} header`;
			continue;
		}
		let value = headers[name];
		if (Array.isArray(value)) value = value.length === 1 ? value[0] : undefined;
		if (typeof value !== 'string' || value.includes(','))
			slot.error = `repeated or empty ${name} header`;
		else slot.value = value.trim();
	}
	if (signature.value === undefined && signature.error === undefined)
		signature.error = `missing *${SIGNATURE_SUFFIX} header`;
	if (timestamp.value === undefined && timestamp.error === undefined)
		timestamp.error = `missing *${TIMESTAMP_SUFFIX} header`;
	return { signature, timestamp };
}

/** Pure: HMAC-SHA256 of `<timestamp>.<raw body>`, hex, with any of `secrets`. Never throws. */
export function verifySignature(
	headers: HeaderMap,
	rawBody: Buffer | undefined,
	secrets: readonly string[],
	now: number,
	toleranceMs: number,
): Verification {
	try {
		if (!secrets.some((secret) => typeof secret === 'string' && secret.length > 0))
			return { ok: false, reason: 'no webhook secret configured', secretMayHelp: true };
		if (!Buffer.isBuffer(rawBody)) return { ok: false, reason: 'raw body unavailable' };
		const found = findHeaders(headers);
		if (found.signature.error !== undefined) return { ok: false, reason: found.signature.error };
		if (found.timestamp.error !== undefined) return { ok: false, reason: found.timestamp.error };
		const signature = found.signature.value as string;
		const stamp = found.timestamp.value as string;
		if (!/^\d{1,16}$/.test(stamp))
			return { ok: false, reason: 'timestamp is not a number of milliseconds' };
		const timestamp = Number(stamp);
		if (Math.abs(now - timestamp) > toleranceMs)
			return { ok: false, reason: 'timestamp outside the tolerance window' };
		// Hex decoding stops at the first non-hex character: 32 bytes from 64 means all hex.
		const given = signature.length === 64 ? Buffer.from(signature, 'hex') : undefined;
		if (!given || given.length !== 32)
			return { ok: false, reason: 'signature is not 64 hex characters' };
		const prefix = `${stamp}.`;
		let match = -1;
		// Check every secret (no early exit) so timing does not reveal which one matched. The HMAC
		// is fed the prefix and the raw bytes in turn: no copy of the body.
		for (let index = 0; index < secrets.length; index++) {
			const secret = secrets[index];
			if (typeof secret !== 'string' || secret.length === 0) continue;
			const expected = createHmac('sha256', secret).update(prefix).update(rawBody).digest();
			if (timingSafeEqual(expected, given) && match === -1) match = index;
		}
		// Only a mismatch (or no secret at all) could be cured by a secret saved since: secretMayHelp.
		return match === -1
			? { ok: false, reason: 'signature does not match', secretMayHelp: true }
			: { ok: true, timestamp, secretIndex: match };
	} catch {
		return { ok: false, reason: 'signature could not be checked' };
	}
}
