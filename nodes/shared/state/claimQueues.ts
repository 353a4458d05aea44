/**
 * Holds: per workflow and trigger node, this process's batch of delivery claims
 * (VirtualMailboxTrigger/claims.ts, batchedStore) waiting for its next write to n8n's
 * deduplication store, and whether a write or the pause after it is under way.
 * Bound: one entry per node with a claim in flight; an entry is removed when its batch is idle.
 * Several processes: not shared, and need not be: claims from other processes (other workers) are
 * what the claim protocol itself settles.
 */
const batches = new Map<string, unknown>();

export const claimQueues = {
	/** The batch kept for `scope`, made by `create` if there is none; `create` gets the function that forgets it. */
	of<T>(scope: string, create: (forget: () => void) => T): T {
		let batch = batches.get(scope) as T | undefined;
		if (batch === undefined) {
			const made = create(() => {
				if (batches.get(scope) === made) batches.delete(scope);
			});
			batch = made;
			batches.set(scope, made);
		}
		return batch;
	},
};
