import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { MAIL_STATUSES, MAIL_TYPES, SCAN_STATUSES } from './constants';
import { folderLocator, optionsOf, PERIOD_OPTIONS, SORT_FILTER } from './descriptions';
import type { Query, SplitDimension } from './transport';
import { canonicalMailStatus, canonicalMailType, canonicalScanStatus } from './values';

/** The GET /v1/mails filters, offered by Get Many and the poll trigger alike. */
export const MAIL_FILTERS: INodeProperties[] = [
	{
		displayName: 'Arrived',
		name: 'arrived',
		type: 'options',
		default: 'week',
		description: 'Only mail that arrived within this period',
		options: PERIOD_OPTIONS,
	},
	{ ...folderLocator({ required: false, description: 'Only mail filed in this folder' }) },
	{
		displayName: 'Is Read',
		name: 'isRead',
		type: 'options',
		default: 'false',
		options: [
			{ name: 'Read', value: 'true' },
			{ name: 'Unread', value: 'false' },
		],
	},
	{
		displayName: 'Mail Type',
		name: 'mailType',
		type: 'multiOptions',
		default: [],
		options: optionsOf(MAIL_TYPES),
	},
	{
		displayName: 'Scan Status',
		name: 'scanStatus',
		type: 'multiOptions',
		default: [],
		description: '"None" selects mail with no scan requested',
		options: optionsOf(SCAN_STATUSES),
	},
	{
		displayName: 'Search',
		name: 'search',
		type: 'string',
		default: '',
		description: 'Free text the service matches against the mail item, such as a sender name',
	},
	SORT_FILTER,
	{
		displayName: 'Status',
		name: 'status',
		type: 'multiOptions',
		default: [],
		options: optionsOf(MAIL_STATUSES),
	},
];

const toList = (value: unknown): string[] =>
	Array.isArray(value) ? (value as string[]) : value ? [String(value)] : [];

export function mailQuery(filters: IDataObject, folderId?: string): Query {
	return {
		status: toList(filters.status),
		mail_type: toList(filters.mailType),
		scan_status: toList(filters.scanStatus),
		folder_id: folderId,
		search: filters.search as string | undefined,
		sort: filters.sort as string | undefined,
		arrived: filters.arrived as string | undefined,
		is_read: filters.isRead as string | undefined,
	};
}

/** An item's value in its canonical form (values.ts), as the filter takes it. */
const canonical = (convert: (value: unknown) => unknown) => (value: unknown) => {
	const out = convert(value);
	return typeof out === 'string' ? out.toLowerCase() : undefined;
};
const mailStatusOf = canonical(canonicalMailStatus);
const mailTypeOf = canonical(canonicalMailType);
const scanStatusOf = canonical(canonicalScanStatus);

/** Exclusive partitions of the mailbox, tried in this order past the depth limit. */
export const MAIL_SPLITS: readonly SplitDimension[] = [
	{ param: 'status', values: MAIL_STATUSES, sampleValue: (item) => mailStatusOf(item.mail_status) },
	{ param: 'mail_type', values: MAIL_TYPES, sampleValue: (item) => mailTypeOf(item.mail_type) },
	{
		param: 'scan_status',
		values: SCAN_STATUSES,
		sampleValue: (item) => (item.scan ? scanStatusOf((item.scan as IDataObject).status) : 'none'),
	},
	{
		param: 'is_read',
		values: ['true', 'false'],
		sampleValue: (item) => (typeof item.is_read === 'boolean' ? String(item.is_read) : undefined),
	},
];

/**
 * The order GET /v1/mails returns, as far as the spec says. Same-instant items compare equal: the
 * spec says nothing of ties. Mail without an arrival date sorts as if it arrived last, as a
 * database orders nulls.
 */
export function mailOrder(sort: string): (a: IDataObject, b: IDataObject) => number {
	const direction = sort === 'oldest' ? 1 : -1;
	// Each item's arrival parsed once: a merge of 10,000 items compares each many times.
	const times = new WeakMap<IDataObject, number>();
	const time = (item: IDataObject) => {
		let parsed = times.get(item);
		if (parsed === undefined) {
			const date = Date.parse(String(item.arrival_date ?? ''));
			times.set(item, (parsed = Number.isNaN(date) ? Number.MAX_SAFE_INTEGER : date));
		}
		return parsed;
	};
	return (a, b) => direction * (time(a) - time(b));
}
