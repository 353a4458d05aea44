/**
 * Holds: per account and lower-cased folder name, the lookup in flight or the id of a folder this
 * process created within REUSE_MS, so that many items (or executions) filing into one new folder at
 * once create it once.
 * Bound: entries older than REUSE_MS are not used and are dropped whenever one is added; a lookup
 * that found an existing folder is dropped as soon as it settles (the API's list is the truth).
 * Several processes: not shared. Two processes filing into the same new name at the same moment can
 * each create a folder; each then looks again and files into the oldest, and the other creator
 * removes its own (folders.ts keepOldest).
 */
export const REUSE_MS = 5 * 60_000;

const creations = new Map<string, { at: number; id: Promise<string> }>();

export const folderCreations = {
	get(key: string, now: number): Promise<string> | undefined {
		const entry = creations.get(key);
		return entry && now - entry.at < REUSE_MS ? entry.id : undefined;
	},
	set(key: string, id: Promise<string>, now: number): void {
		for (const [other, { at }] of creations) if (now - at >= REUSE_MS) creations.delete(other);
		creations.set(key, { at: now, id });
	},
	/** Drop `key` if it still holds `id` (a newer entry stays). */
	release(key: string, id: Promise<string>): void {
		if (creations.get(key)?.id === id) creations.delete(key);
	},
};
