/**
 * Holds: the poll triggers (workflow id + node id) whose poll, downloads included, runs in this
 * process. n8n starts a scheduled poll without waiting for the last one, and two polls from one
 * state would emit the same items twice, so the second returns nothing. Bound: one entry per poll
 * running, removed however it ends. Several processes: not shared; n8n polls on the leader only.
 * See docs/seams.md.
 */
const running = new Set<string>();

export const pollsInFlight = {
	/** False if a poll of `key` already runs: the caller must not poll. */
	start(key: string): boolean {
		if (running.has(key)) return false;
		running.add(key);
		return true;
	},
	end: (key: string) => void running.delete(key),
	/** Forget everything, as a restart would (tests). */
	clear: () => running.clear(),
};
