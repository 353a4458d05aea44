/**
 * Holds: the keys (workflow id + node id) of the poll triggers whose poll is running in this
 * process. n8n starts each scheduled poll without waiting for the previous one; two polls of one
 * trigger would start from the same state and emit the same items twice, so a poll that finds its
 * key here returns nothing and leaves the state alone (the running poll saves its own). A poll is
 * running until its Download File downloads end too, so its items reach the workflow in order.
 * Bound: one entry per poll trigger with a poll running; each is removed when its poll ends,
 * however it ends.
 * Several processes: not shared. n8n runs a workflow's polls in one process (the leader main in
 * queue mode); after a leader change the new leader starts from the last saved state, and a poll
 * still running on the old leader is not seen here.
 */
const running = new Set<string>();

export const pollsInFlight = {
	/** Marks the poll of `key` as running; false if one already is (then the caller must not poll). */
	start(key: string): boolean {
		if (running.has(key)) return false;
		running.add(key);
		return true;
	},
	end: (key: string) => void running.delete(key),
	/** Forget everything, as a restart would (tests). */
	clear: () => running.clear(),
};
