import type { IDataObject } from 'n8n-workflow';

import { recentDeliveries } from '../shared/state/recentDeliveries';

/** Per-node state in workflow static data, bounded (n8n saves a webhook's static data unreliably: claims.ts decides across restarts). */
export interface DeliveryState extends IDataObject {
	/** `resource|status#digest` → receipt time (ms) of the last delivery seen. */
	seen: Record<string, number>;
	/** resource → signing timestamp and status#digest of the newest delivery seen. */
	latest: Record<string, { at: number; status: string }>;
}

/** n8n rewrites the whole static data after every delivery: keep it small. */
export const MAX_ENTRIES = 1_000;

export type Verdict = 'new' | 'duplicate' | 'stale';

export function stateOf(staticData: IDataObject): DeliveryState {
	if (!staticData.seen || typeof staticData.seen !== 'object') staticData.seen = {};
	if (!staticData.latest || typeof staticData.latest !== 'object') staticData.latest = {};
	return staticData as DeliveryState;
}

/**
 * Decide what to do with a delivery and record it in `state` (static data) and in this process's
 * recentDeliveries (copies arriving at the same moment, before static data is saved). This is the
 * webhook's fast check, in the process that received the delivery; n8n does not reliably save a
 * webhook's static data, so across processes and restarts the execution's claim (claims.ts) decides.
 * `status` is what makes a delivery distinct (the trigger passes the status with a digest of the
 * payload's content: identityOf's version). Duplicate: same resource and status within `windowMs`.
 * Stale: signed earlier than a delivery already seen for the same resource with another status
 * (out-of-order arrival).
 */
export function judge(
	state: DeliveryState,
	delivery: { resource: string; status: string; signedAt: number; trackOrder?: boolean },
	now: number,
	options: { windowMs: number; dropStale: boolean },
	scope = '',
): Verdict {
	const key = `${delivery.resource}|${delivery.status}`;
	const seenAt = state.seen[key] ?? recentDeliveries.get(`${scope}|${key}`);
	if (options.windowMs > 0 && seenAt !== undefined && now - seenAt <= options.windowMs)
		return 'duplicate';
	const latest = state.latest[delivery.resource];
	if (
		options.dropStale &&
		latest &&
		delivery.signedAt < latest.at &&
		latest.status !== delivery.status
	)
		return 'stale';
	// Record only what an enabled check will read: nothing for a window of 0, no order for new mail.
	if (options.windowMs > 0) {
		state.seen[key] = now;
		recentDeliveries.set(`${scope}|${key}`, now);
	}
	if (
		options.dropStale &&
		delivery.trackOrder !== false &&
		(!latest || delivery.signedAt >= latest.at)
	) {
		state.latest[delivery.resource] = { at: delivery.signedAt, status: delivery.status };
	}
	prune(state, now, options.windowMs);
	return 'new';
}

/** Expire and trim only once a record is a tenth over the cap, so the work is spread thin. */
function prune(state: DeliveryState, now: number, windowMs: number): void {
	if (Object.keys(state.seen).length > MAX_ENTRIES * 1.1) {
		for (const [key, at] of Object.entries(state.seen))
			if (now - at > windowMs) delete state.seen[key];
		trim(state.seen, (at) => at);
	}
	if (Object.keys(state.latest).length > MAX_ENTRIES * 1.1) trim(state.latest, (entry) => entry.at);
}

/** Keep the newest MAX_ENTRIES entries. */
function trim<T>(record: Record<string, T>, time: (value: T) => number): void {
	const keys = Object.keys(record);
	if (keys.length <= MAX_ENTRIES) return;
	keys.sort((a, b) => time(record[a]) - time(record[b]));
	for (const key of keys.slice(0, keys.length - MAX_ENTRIES)) delete record[key];
}
