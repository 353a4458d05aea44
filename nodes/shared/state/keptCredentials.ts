import type { VirtualMailboxCredentials } from '../transport/credentials';

/**
 * Holds: the webhook trigger's credential per workflow, node and credential id, for
 * KEEP_CREDENTIALS_MS after it was read. In n8n, reading a credential while a webhook is handled
 * costs a database query, a decryption and an expression isolate of its own: most of what the
 * trigger added to n8n's cost per delivery (bench/profile-trigger.mjs).
 * Bound: one entry per active trigger node; expired entries are dropped whenever one is added.
 * Several processes: each keeps its own copy. A delivery that fails its signature check against the
 * kept copy reads the credential again before it is rejected, so a new secret works at once in
 * every process; a secret taken out of the credential is still accepted by a process for at most
 * KEEP_CREDENTIALS_MS (and at once no more after the workflow is re-activated there).
 * The account: keyed by credential id, so another credential is read at once. An edit of the same
 * credential is not seen until it is read again: a new API key is (Add Full Resource's 401 reads
 * it again once); a new Environment or Base URL is when the deliveries come signed with the new
 * account's secret (the failed check reads it again); until then the kept copy is the account that
 * signed them.
 */
export const KEEP_CREDENTIALS_MS = 60_000;

const kept = new Map<string, { credentials: VirtualMailboxCredentials; until: number }>();

export const keptCredentials = {
	get(key: string, now: number): VirtualMailboxCredentials | undefined {
		const entry = kept.get(key);
		return entry && entry.until > now ? entry.credentials : undefined;
	},
	set(key: string, credentials: VirtualMailboxCredentials, now: number): void {
		for (const [other, { until }] of kept) if (until <= now) kept.delete(other);
		kept.set(key, { credentials, until: now + KEEP_CREDENTIALS_MS });
	},
	delete: (key: string) => void kept.delete(key),
	/** Forget everything, as a restart would (tests). */
	clear: () => kept.clear(),
};
