/**
 * Holds: per trigger node, this process's claims waiting for a turn with the claim lock
 * (VirtualMailboxTrigger/claims.ts), its store write times and whether it warned of another
 * node's row. Bound: the last 1,000 nodes that claimed, plus any with claims in flight; an idle
 * one goes first. Several processes: not shared; the lock settles claims across processes.
 */
const queues = new Map<string, unknown>();
const MAX_QUEUES = 1_000;

export const claimQueues = {
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
