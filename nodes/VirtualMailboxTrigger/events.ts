import { MAIL_TYPES } from '../shared/constants';
import { canonicalMailType, canonicalScanType } from '../shared/values';

export const EVENTS = ['new-mail', 'scan-update', 'open-update', 'shipment-update'] as const;
export type EventName = (typeof EVENTS)[number];

type Payload = Record<string, unknown>;

const has = (body: Payload, key: string) => Object.prototype.hasOwnProperty.call(body, key);

/**
 * Pure: which event a delivery is. Bodies carry no event name, so the payload's shape decides
 * (docs/webhook-trigger.md, "Which event a delivery is"); a shape the spec does not quite describe
 * still runs when it is plausibly a selected event, so none is lost. Undefined: a scan or open
 * update that nothing tells apart (the trigger then asks the API).
 */
export function detectEvent(
	body: unknown,
	selected: readonly string[] = EVENTS,
): EventName | undefined {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const payload = body as Payload;
	if (has(payload, 'uuid')) {
		if (has(payload, 'scan_result_url') || has(payload, 'ai_label') || has(payload, 'ai_summary'))
			return 'scan-update';
		if (has(payload, 'open_result_url')) return 'open-update';
		const candidates = (['scan-update', 'open-update'] as const).filter((e) =>
			selected.includes(e),
		);
		if (candidates.length === 1) return candidates[0];
		// Both selected, or neither (then it is ignored as not selected, whichever it is).
		return (
			scanEventOfMailType(payload.mail_type) ?? (candidates.length ? undefined : 'scan-update')
		);
	}
	if (
		has(payload, 'tracking_data') ||
		has(payload, 'destination_address') ||
		has(payload, 'auto_forward')
	)
		return 'shipment-update';
	if (has(payload, 'image_url') || has(payload, 'mail_status')) return 'new-mail';
	if (has(payload, 'id') && has(payload, 'status')) return 'shipment-update';
	if (has(payload, 'id') && has(payload, 'mail_type')) return 'new-mail';
	return undefined;
}

/** The SDK: LETTER and LARGELETTER take a scan, the other mail types an open. */
function scanEventOfMailType(mailType: unknown): EventName | undefined {
	const type = canonicalMailType(mailType);
	if (typeof type !== 'string' || !(MAIL_TYPES as readonly string[]).includes(type))
		return undefined;
	return type === 'letter' || type === 'large_letter' ? 'scan-update' : 'open-update';
}

/** The event of a scan's REST `type` (`SCAN_REQUEST`, `UNBOXING_REQUEST`), if it is one of them. */
export function scanEventOfType(type: unknown): EventName | undefined {
	const canonical = canonicalScanType(type);
	return canonical === 'SCAN_REQUEST'
		? 'scan-update'
		: canonical === 'UNBOXING_REQUEST'
			? 'open-update'
			: undefined;
}

export const FILE_FIELD: Record<EventName, string | undefined> = {
	'new-mail': 'image_url',
	'scan-update': 'scan_result_url',
	'open-update': 'open_result_url',
	'shipment-update': undefined,
};
