import { createHash } from 'crypto';

import { baseUrlOf, type VirtualMailboxCredentials } from './transport';

/** The account a credential reaches, as the triggers' states key it. */
export type Account = { credentialId: string; server: string; keyDigest: string };

/** Pure: the credential's id, its server and a digest of its API key (never the key itself). */
export function accountOf(
	credentialId: string | null | undefined,
	credentials: VirtualMailboxCredentials,
): Account {
	return {
		credentialId: credentialId ?? '',
		server: baseUrlOf(credentials).toLowerCase(),
		keyDigest: digest(String(credentials.apiKey ?? '').trim()),
	};
}

/** A short, stable digest: what a saved state keeps instead of a key or an account id. */
export function digest(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
