import type { IDataObject } from 'n8n-workflow';

import { recentDeliveries } from '../shared/state/recentDeliveries';

/**
 * The webhook's window in front of the database claim: a delivery whose key was accepted within
 * the Duplicate Window is dropped before an execution starts. It sees this process's recent
 * deliveries and the static data n8n saves unreliably for webhooks, so the claim decides across
 * processes and restarts. See docs/webhook-trigger.md, "Duplicates: each delivery runs once".
 */
export interface DeliveryState extends IDataObject {
	/** Delivery key (deliveryKey.ts) → receipt time (ms) of the last delivery seen. */
	seen: Record<string, number>;
	/** resource → signing timestamp and version (status#digest) of the newest delivery seen. */
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
 * Decides a delivery and records it (a window of 0 records nothing). Duplicate: its key was seen
 * within `windowMs`. Stale: signed earlier than a delivery already seen for the same resource
 * with another version (out-of-order arrival).
 */
export function judge(
	state: DeliveryState,
	delivery: {
		key: string;
		resource: string;
		version: string;
		signedAt: number;
		trackOrder?: boolean;
	},
	now: number,
	options: { windowMs: number; dropStale: boolean },
	scope = '',
): Verdict {
	const { key } = delivery;
	const seenAt = state.seen[key] ?? recentDeliveries.get(`${scope}|${key}`);
	if (options.windowMs > 0 && seenAt !== undefined && now - seenAt <= options.windowMs)
		return 'duplicate';
	const latest = state.latest[delivery.resource];
	if (
		options.dropStale &&
		latest &&
		delivery.signedAt < latest.at &&
		latest.status !== delivery.version
	)
		return 'stale';
	if (options.windowMs > 0) {
		state.seen[key] = now;
		recentDeliveries.set(`${scope}|${key}`, now);
	}
	// New mail has no order to keep.
	if (
		options.dropStale &&
		delivery.trackOrder !== false &&
		(!latest || delivery.signedAt >= latest.at)
	) {
		state.latest[delivery.resource] = { at: delivery.signedAt, status: delivery.version };
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

function trim<T>(record: Record<string, T>, time: (value: T) => number): void {
	const keys = Object.keys(record);
	if (keys.length <= MAX_ENTRIES) return;
	keys.sort((a, b) => time(record[a]) - time(record[b]));
	for (const key of keys.slice(0, keys.length - MAX_ENTRIES)) delete record[key];
}
