import type { IDataObject } from 'n8n-workflow';

import {
	canonicalMailStatus,
	canonicalMailType,
	canonicalScanStatus,
	canonicalShipmentStatus,
} from '../shared/values';
import type { EventName } from './events';

/**
 * Pure: a delivery in the REST API's shape (version 2), so one rule matches this item, Mail →
 * Get's and the Poll Trigger's. See docs/webhook-trigger.md, "Output: one shape of mail".
 */
export function restShapeOf(event: EventName, body: IDataObject): IDataObject {
	if (event === 'new-mail') return mapFields(body, NEW_MAIL);
	if (event === 'shipment-update') return mapFields(body, SHIPMENT);
	const { id, mail_id, status, ...others } = mapFields(body, SCAN);
	const type = event === 'scan-update' ? 'SCAN_REQUEST' : 'UNBOXING_REQUEST';
	// In the REST scan's order: its id, mail id, type and status first. The computed type is set
	// after the delivered fields: a delivered `type` (none is specified) does not replace it.
	const scan: IDataObject = { id, mail_id, type, status, ...others };
	scan.type = type;
	return scan;
}

/** A delivery's field → its REST name and how its value converts. */
type FieldMap = Record<string, [string, (value: unknown) => unknown]>;

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (value: unknown) => value;
const idText = (value: unknown) => (typeof value === 'number' ? String(value) : value);
const emptyAsNull = (value: unknown) => (value === '' ? null : value);

// Enums in the canonical form every node outputs (shared/values.ts).
const mailType = canonicalMailType;
const shipmentStatus = canonicalShipmentStatus;

/** Decimal text → number; text that is not a number stays as it is (never NaN). */
function decimal(value: unknown): unknown {
	if (typeof value !== 'string' || value.trim() === '') return value;
	const number = Number(value);
	return Number.isFinite(number) ? number : value;
}

/** One summary point per line, as the scan summary lists them; none is null. */
function summaryList(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	if (value.trim() === '') return null;
	return value
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line !== '');
}

function mapFields(record: IDataObject, map: FieldMap): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(record)) {
		const [name, convert] = map[key] ?? [key, same];
		out[name] = convert(value) as IDataObject[string];
	}
	return out;
}

const NEW_MAIL: FieldMap = {
	id: ['id', idText],
	mail_type: ['mail_type', mailType],
	mail_status: ['mail_status', canonicalMailStatus],
	recipient_name: ['recipient_name', emptyAsNull],
	sender_name: ['sender_name', emptyAsNull],
	weight: ['weight', decimal],
	measurement: [
		'measurement',
		(value) =>
			isObject(value)
				? mapFields(value, {
						width: ['width', decimal],
						height: ['height', decimal],
						length: ['length', decimal],
					})
				: value,
	],
	image_url: ['envelope_image_url', same],
};

const SCAN: FieldMap = {
	id: ['mail_id', idText],
	uuid: ['id', same],
	current_status: ['status', canonicalScanStatus],
	ai_label: ['label', emptyAsNull],
	ai_summary: ['summary', summaryList],
	mail_type: ['mail_type', mailType],
	recipient_name: ['recipient_name', emptyAsNull],
	sender_name: ['sender_name', emptyAsNull],
};

const DESTINATION: FieldMap = {
	name: ['name', emptyAsNull],
	address_line: ['line1', emptyAsNull],
	address_line_2: ['line2', emptyAsNull],
	address_line_3: ['line3', emptyAsNull],
	city: ['city', emptyAsNull],
	state: ['state', emptyAsNull],
	postal_code: ['postal_code', emptyAsNull],
	country: ['country', emptyAsNull],
	address_type: ['address_type', emptyAsNull],
	tax_id: ['tax_id', emptyAsNull],
	phone_number: ['phone_number', emptyAsNull],
};

const SHIPMENT: FieldMap = {
	status: ['status', shipmentStatus],
	service: ['service_name', emptyAsNull],
	tracking_data: ['tracking_number', emptyAsNull],
	auto_forward: [
		'auto_forward',
		(value) => (value === 'true' ? true : value === 'false' ? false : value),
	],
	destination_address: [
		'destination',
		(value) => (isObject(value) ? mapFields(value, DESTINATION) : value),
	],
};
