/**
 * Holds: `scope|resource|status` → receipt time of the production deliveries accepted recently in
 * this process. n8n saves static data only after a delivery, so two copies at the same moment
 * would both read the old state; this catches them. Bound: RECENT_MAX entries, the oldest tenth
 * dropped past it. Several processes: not shared; the claim (claims.ts) decides across them.
 * See docs/seams.md.
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
