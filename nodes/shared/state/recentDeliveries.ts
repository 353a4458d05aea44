/**
 * Holds: `scope|resource|status` → receipt time of the production deliveries the webhook trigger
 * accepted recently in this process (scope: workflow and node name; a test delivery, at the Test
 * URL, records nothing, so its copy at the Production URL still runs). n8n saves a workflow's static data only after a delivery has been
 * handled, so two copies arriving at the same moment would both read the old state; this catches
 * them.
 * Bound: RECENT_MAX entries; past it the oldest tenth is dropped (Map keeps insertion order).
 * Several processes: not shared. A copy that reaches another process (or arrives after a restart)
 * is accepted there, and its execution ends at the trigger: the claim in n8n's database
 * (VirtualMailboxTrigger/claims.ts) is what makes a delivery run once across processes.
 */
const RECENT_MAX = 10_000;
const recent = new Map<string, number>();

export const recentDeliveries = {
	get: (key: string) => recent.get(key),
	set(key: string, at: number): void {
		recent.set(key, at);
		if (recent.size <= RECENT_MAX) return;
		let drop = RECENT_MAX / 10;
		for (const old of recent.keys()) {
			if (drop-- <= 0) break;
			recent.delete(old);
		}
	},
	/** Forget everything, as a restart would (tests). */
	clear: () => recent.clear(),
};
