import type { IDataObject } from 'n8n-workflow';
import { createHash } from 'crypto';

import { canonicalScanStatus } from '../shared/values';
import { detectEvent, EVENTS, type EventName } from './events';

/**
 * What makes two deliveries one: the key the webhook's window, the catch-up and the claim all use,
 * and the one content digest behind it. See docs/webhook-trigger.md, "Duplicates: each delivery
 * runs once".
 */

/** Fields the trigger adds to an item: not delivered content. */
const ADDED_FIELDS = new Set([
	'event',
	'mail_item',
	'mail_item_error',
	'scan_summary',
	'scan_summary_error',
	'shipment',
	'shipment_error',
	'download_error',
	'enrichment_error',
	'caught_up',
]);

/** Pre-signed links are signed anew for every delivery: they are not content. */
export function contentDigest(record: IDataObject): string {
	const content = (fields: IDataObject): Array<[string, unknown]> =>
		Object.keys(fields)
			.filter((key) => !ADDED_FIELDS.has(key) && !key.endsWith('_url') && key !== 'message')
			.sort()
			.map((key) => {
				const value = fields[key];
				return [
					key,
					key === 'delivery' && typeof value === 'object' && value !== null && !Array.isArray(value)
						? content(value as IDataObject)
						: value,
				];
			});
	return createHash('sha256')
		.update(JSON.stringify(content(record)))
		.digest('hex')
		.slice(0, 16);
}

/**
 * The id the spec says handlers should key on (`resource`), the status, and `version`: the status
 * plus the content digest. A same-status update with new content (tracking_data filled in, an
 * ai_summary added) is a new version; a copy of a delivery is not.
 */
export function identityOf(
	event: EventName,
	body: IDataObject,
): { resource: string; status: string; version: string } {
	const id = event === 'scan-update' || event === 'open-update' ? body.uuid : body.id;
	const status = String(
		(event === 'new-mail'
			? body.mail_status
			: event === 'shipment-update'
				? body.status
				: body.current_status) ?? '',
	);
	return {
		resource: `${event}:${String(id)}`,
		status,
		version: `${status}#${contentDigest(body)}`,
	};
}

/**
 * The key of an item the trigger outputs at node version `typeVersion`, undefined for an item
 * version 2 cannot key (no event or id). Versions 1 and 1.1 output the delivery: its resource and
 * version. Version 2 outputs the REST shape: new mail keys on its id and a completed scan or open
 * request on its id and COMPLETED, what a caught-up item (catchUp.ts) shares with the delivery;
 * other updates on their status and content.
 */
export function deliveryKeyOf(json: IDataObject, typeVersion: number): string | undefined {
	const event = json.event;
	if (typeof event !== 'string' || !(EVENTS as readonly string[]).includes(event)) return undefined;
	if (typeVersion < 2) {
		const body: IDataObject = {};
		for (const [field, value] of Object.entries(json))
			if (!ADDED_FIELDS.has(field)) body[field] = value;
		if (detectEvent(body, [event]) !== event) return undefined;
		const identity = identityOf(event as EventName, body);
		return `${identity.resource}|${identity.version}`;
	}
	if (json.id === undefined || json.id === null) return undefined;
	if (event === 'new-mail') return `new-mail:${String(json.id)}`;
	const status = String(json.status ?? '');
	if (
		(event === 'scan-update' || event === 'open-update') &&
		canonicalScanStatus(status) === 'COMPLETED'
	)
		return `${event}:${String(json.id)}|COMPLETED`;
	return `${event}:${String(json.id)}|${status}#${contentDigest(json)}`;
}
