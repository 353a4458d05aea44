import type { INodeProperties } from 'n8n-workflow';

import { MAIL_STATUSES, MAIL_TYPES } from './constants';

/** A scan's status as the REST API and the triggers output it (spec "Scan"): upper case. */
export const SCAN_OUTPUT_STATUSES = [
	'IN_PROCESS',
	'COMPLETED',
	'CANCELLED',
	'REJECTED',
	'DELETED',
	'RESTORING',
] as const;
/** A shipment's status (spec "Shipment"): in_progress covers every internal state. */
export const SHIPMENT_STATUSES = ['shipped', 'in_progress', 'payment_failed', 'rejected'] as const;

const either = (values: readonly string[]) =>
	`${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

/**
 * Pure: the values a rule (IF, Switch, Filter) matches a trigger's output against, shown where
 * the rule is written, so nobody types "Magazine" or "LETTER" and matches nothing.
 */
export function ruleValuesText(what: { mail: boolean; scan: boolean; shipment: boolean }): string {
	const parts = [
		...(what.mail
			? [`mail_type is ${either(MAIL_TYPES)}`, `mail_status is ${either(MAIL_STATUSES)}`]
			: []),
		...(what.scan ? [`a scan's status is ${either(SCAN_OUTPUT_STATUSES)} (upper case)`] : []),
		...(what.shipment ? [`a shipment's status is ${either(SHIPMENT_STATUSES)}`] : []),
	];
	return (
		'Values for rules (IF, Switch, Filter), as Mail → Get returns them: ' +
		`${parts.join('; ')}. Turn on Ignore Case in a rule to match any letter case.`
	);
}

/** A notice with ruleValuesText, for a trigger's panel. */
export function ruleValuesNotice(
	what: { mail: boolean; scan: boolean; shipment: boolean },
	displayOptions?: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: ruleValuesText(what),
		name: 'ruleValuesNotice',
		type: 'notice',
		default: '',
		...(displayOptions ? { displayOptions } : {}),
	};
}

/**
 * One canonical form for every enum a rule matches on, from every node: the REST filter values,
 * and upper case for scan statuses. The API's letter case is "not shown" (spec), so a known value
 * is found whatever its case and separators; an unknown one keeps its words (`pending_review`).
 */
const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const words = (text: string) =>
	text
		.trim()
		.replace(/([a-z0-9])([A-Z])/g, '$1_$2')
		.replace(/[^A-Za-z0-9]+/g, '_')
		.replace(/^_+|_+$/g, '')
		.toLowerCase();

function canonicalOf(known: readonly string[]): (value: unknown) => unknown {
	const bySquash = new Map(known.map((value) => [squash(value), value]));
	return (value) => {
		if (typeof value !== 'string' || value.trim() === '') return value;
		return bySquash.get(squash(value)) ?? words(value);
	};
}

export const canonicalMailType = canonicalOf(MAIL_TYPES);
export const canonicalMailStatus = canonicalOf(MAIL_STATUSES);
const scanStatusLower = canonicalOf(SCAN_OUTPUT_STATUSES.map((s) => s.toLowerCase()));
export const canonicalScanStatus = (value: unknown): unknown => {
	const status = scanStatusLower(value);
	return typeof status === 'string' ? status.toUpperCase() : status;
};
const scanTypeLower = canonicalOf(['scan_request', 'unboxing_request']);
/** A scan's `type` or a mail item's `scan.category`, upper case as REST's. */
export const canonicalScanType = (value: unknown): unknown => {
	const type = scanTypeLower(value);
	return typeof type === 'string' ? type.toUpperCase() : type;
};
const shipmentStatusKnown = canonicalOf(SHIPMENT_STATUSES);
/** `in_progress` covers "every internal workflow state" (spec), such as the sample's PROCESSED. */
export const canonicalShipmentStatus = (value: unknown): unknown => {
	const status = shipmentStatusKnown(value);
	return typeof status === 'string' && !(SHIPMENT_STATUSES as readonly string[]).includes(status)
		? 'in_progress'
		: status;
};

/** A scan moves no more after these unless restored; any other status is "not finished yet". */
const FINISHED_SCAN_STATUSES = ['COMPLETED', 'CANCELLED', 'REJECTED', 'DELETED'];
export const isFinishedScanStatus = (value: unknown): boolean =>
	FINISHED_SCAN_STATUSES.includes(String(canonicalScanStatus(value)));

type Fields = { [key: string]: unknown };
const isRecord = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** Pure: a copy of a REST record (`kind`: what the endpoint returns) with its enums canonical. */
export function canonicalRecord<T>(value: T, kind: 'mail' | 'scan' | 'shipment' | 'other'): T {
	if (Array.isArray(value)) return value.map((entry) => canonicalRecord(entry, kind)) as T;
	if (!isRecord(value)) return value;
	const out: Fields = {};
	for (const [key, field] of Object.entries(value)) {
		if (key === 'mail_type') out[key] = canonicalMailType(field);
		else if (key === 'mail_status') out[key] = canonicalMailStatus(field);
		else if (key === 'status' && kind === 'scan') out[key] = canonicalScanStatus(field);
		else if ((key === 'type' || key === 'category') && kind === 'scan')
			out[key] = canonicalScanType(field);
		else if (key === 'status' && kind === 'shipment') out[key] = canonicalShipmentStatus(field);
		else if (key === 'scan' && isRecord(field)) out[key] = canonicalRecord(field, 'scan');
		else if (key === 'mail_item' || key === 'mail_items') out[key] = canonicalRecord(field, 'mail');
		else if (key === 'shipment') out[key] = canonicalRecord(field, 'shipment');
		else out[key] = field;
	}
	return out as T;
}
