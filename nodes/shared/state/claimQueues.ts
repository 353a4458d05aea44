/**
 * Holds: per workflow and trigger node, this process's delivery claims waiting for its next turn
 * with the claim lock (VirtualMailboxTrigger/claims.ts), whether a turn is under way, the process's
 * recent write times to n8n's deduplication store, and whether it has warned about a row that is
 * not the lock.
 * Bound: the last 1,000 trigger nodes that claimed in this process (a few hundred bytes each),
 * plus any with claims in flight beyond those; an idle one is forgotten first (it then warns again
 * about another node's row).
 * Several processes: not shared, and need not be: claims from other processes (other workers) are
 * what the lock itself settles.
 */
const queues = new Map<string, unknown>();
const MAX_QUEUES = 1_000;

export const claimQueues = {
	/** The queue kept for `scope`, made by `create` if there is none. */
	of<T>(scope: string, create: () => T): T {
		let queue = queues.get(scope) as T | undefined;
		if (queue === undefined) {
			queue = create();
			if (queues.size >= MAX_QUEUES) {
				const idle = [...queues].find(([, kept]) => !(kept as { busy?: boolean }).busy);
				if (idle) queues.delete(idle[0]);
			}
		} else queues.delete(scope);
		queues.set(scope, queue); // the most recent last
		return queue;
	},
	/** Forget everything, as a restart would (tests). */
	clear: () => queues.clear(),
};
