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
	return `Values for rules (IF, Switch, Filter), as Mail → Get returns them: ${parts.join('; ')}. Turn on Ignore Case in a rule to match any letter case.`;
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
