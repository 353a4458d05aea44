import type { VirtualMailboxCredentials } from '../transport/credentials';

/**
 * Holds: the webhook trigger's credential per workflow, node and credential id, for
 * KEEP_CREDENTIALS_MS: in n8n each read costs a query, a decryption and an expression isolate,
 * most of the trigger's cost per delivery. Bound: one entry per active trigger node.
 * Several processes: each keeps its own copy; a failed signature check reads the credential again,
 * so a new secret works at once everywhere. What an edit changes when: docs/seams.md.
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
