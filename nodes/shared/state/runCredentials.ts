import type { VirtualMailboxCredentials } from '../transport/credentials';

/**
 * Holds: the credential one node run (one n8n context object) has read, so a Return All of 100
 * pages reads and decrypts it once, not 100 times.
 * Bound: a WeakMap keyed by the context object; an entry goes when n8n drops the context.
 * Several processes: each run lives in one process; nothing to share.
 */
const byContext = new WeakMap<object, Promise<VirtualMailboxCredentials>>();

export const runCredentials = {
	get: (ctx: object) => byContext.get(ctx),
	set: (ctx: object, credentials: Promise<VirtualMailboxCredentials>) =>
		void byContext.set(ctx, credentials),
	delete: (ctx: object) => void byContext.delete(ctx),
};
