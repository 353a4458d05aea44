import { createHash } from 'crypto';

export const EVENTS = ['new-mail', 'scan-update', 'open-update', 'shipment-update'] as const;
export type EventName = (typeof EVENTS)[number];

type Payload = Record<string, unknown>;

const has = (body: Payload, key: string) => Object.prototype.hasOwnProperty.call(body, key);

/**
 * Pure: which event a delivery is. Bodies carry no event name (the subscription implies it), so
 * the payload's shape decides (spec "Payloads"). A scan or open update that carries neither
 * result link is told apart only when the user selected just one of the two.
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
		if (has(payload, 'current_status')) {
			const candidates = (['scan-update', 'open-update'] as const).filter((e) =>
				selected.includes(e),
			);
			return candidates.length === 1 ? candidates[0] : undefined;
		}
		return undefined;
	}
	if (
		has(payload, 'tracking_data') ||
		has(payload, 'destination_address') ||
		has(payload, 'auto_forward')
	)
		return 'shipment-update';
	if (has(payload, 'image_url') || has(payload, 'mail_status')) return 'new-mail';
	return undefined;
}

/**
 * The id the spec says handlers should key on; the status; and the version that makes a delivery
 * distinct: the status plus a digest of everything else in the payload but its pre-signed links
 * (signed anew for every delivery) and its message text. A same-status update with new content
 * (tracking_data filled in, an ai_summary added) is a new version; a copy of a delivery is not.
 */
export function identityOf(
	event: EventName,
	body: Payload,
): { resource: string; status: string; version: string } {
	const id = event === 'scan-update' || event === 'open-update' ? body.uuid : body.id;
	const status = String(
		(event === 'new-mail'
			? body.mail_status
			: event === 'shipment-update'
				? body.status
				: body.current_status) ?? '',
	);
	const content = Object.keys(body)
		.filter((key) => !key.endsWith('_url') && key !== 'message')
		.sort()
		.map((key) => [key, body[key]]);
	const digest = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16);
	return { resource: `${event}:${String(id)}`, status, version: `${status}#${digest}` };
}

/** The pre-signed link each event carries, if any. */
export const FILE_FIELD: Record<EventName, string | undefined> = {
	'new-mail': 'image_url',
	'scan-update': 'scan_result_url',
	'open-update': 'open_result_url',
	'shipment-update': undefined,
};
