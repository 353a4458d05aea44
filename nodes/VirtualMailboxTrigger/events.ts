export const EVENTS = ['new-mail', 'scan-update', 'open-update', 'shipment-update'] as const;
export type EventName = (typeof EVENTS)[number];

type Payload = Record<string, unknown>;

const has = (body: Payload, key: string) => Object.prototype.hasOwnProperty.call(body, key);

/**
 * Pure: which event a delivery is. Bodies carry no event name (the subscription implies it), so
 * the payload's shape decides (spec "Payloads"). A scan or open update that carries neither
 * result link is told apart only when the user selected just one of the two.
 */
export function detectEvent(body: unknown, selected: readonly string[] = EVENTS): EventName | undefined {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const payload = body as Payload;
	if (has(payload, 'uuid')) {
		if (has(payload, 'scan_result_url') || has(payload, 'ai_label') || has(payload, 'ai_summary')) return 'scan-update';
		if (has(payload, 'open_result_url')) return 'open-update';
		if (has(payload, 'current_status')) {
			const candidates = (['scan-update', 'open-update'] as const).filter((e) => selected.includes(e));
			return candidates.length === 1 ? candidates[0] : undefined;
		}
		return undefined;
	}
	if (has(payload, 'tracking_data') || has(payload, 'destination_address') || has(payload, 'auto_forward')) return 'shipment-update';
	if (has(payload, 'image_url') || has(payload, 'mail_status')) return 'new-mail';
	return undefined;
}

/** The id the spec says handlers should key on, and the status that makes a delivery distinct. */
export function identityOf(event: EventName, body: Payload): { resource: string; status: string } {
	const id = event === 'scan-update' || event === 'open-update' ? body.uuid : body.id;
	const status = event === 'new-mail' ? body.mail_status : event === 'shipment-update' ? body.status : body.current_status;
	return { resource: `${event}:${String(id)}`, status: String(status ?? '') };
}

/** The pre-signed link each event carries, if any. */
export const FILE_FIELD: Record<EventName, string | undefined> = {
	'new-mail': 'image_url',
	'scan-update': 'scan_result_url',
	'open-update': 'open_result_url',
	'shipment-update': undefined,
};
