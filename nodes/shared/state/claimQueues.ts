/**
 * Holds: per workflow and trigger node, the tail of this process's chain of writes to n8n's
 * deduplication store made by delivery claims (VirtualMailboxTrigger/claims.ts), so that they reach
 * the store one at a time and cannot overwrite each other's entries there (the claims' waits run
 * outside the chain).
 * Bound: one entry per node with a claim in flight; an entry is removed when its chain is idle.
 * Several processes: not shared, and need not be: claims from other processes (other workers) are
 * what the claim protocol itself settles.
 */
const tails = new Map<string, Promise<unknown>>();

export const claimQueues = {
	/** Run `task` after every earlier task queued under `key` in this process has finished. */
	async run<T>(key: string, task: () => Promise<T>): Promise<T> {
		const previous = tails.get(key) ?? Promise.resolve();
		const result = previous.then(task, task);
		const tail = result.catch(() => undefined);
		tails.set(key, tail);
		try {
			return await result;
		} finally {
			if (tails.get(key) === tail) tails.delete(key);
		}
	},
};
