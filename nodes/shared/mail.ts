import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { MAIL_STATUSES, MAIL_TYPES, SCAN_STATUSES } from './constants';
import { folderLocator, optionsOf } from './descriptions';
import type { Query, SplitDimension } from './transport';

/** The GET /v1/mails filters, offered by Get Many and the poll trigger alike. */
export const MAIL_FILTERS: INodeProperties[] = [
	{
		displayName: 'Arrived',
		name: 'arrived',
		type: 'options',
		default: 'week',
		description: 'Only mail that arrived within this period',
		options: [
			{ name: 'Past Week', value: 'week' },
			{ name: 'Past Month', value: 'month' },
			{ name: 'Past Half Year', value: 'half_year' },
			{ name: 'Past Year', value: 'year' },
		],
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
	{
		displayName: 'Sort',
		name: 'sort',
		type: 'options',
		default: 'newest',
		options: [
			{ name: 'Newest First', value: 'newest' },
			{ name: 'Oldest First', value: 'oldest' },
		],
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'multiOptions',
		default: [],
		options: optionsOf(MAIL_STATUSES),
	},
];

const toList = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : value ? [String(value)] : []);

/** Pure: the node's filters → the GET /v1/mails query. */
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

/** Exclusive partitions of the mailbox the API can filter on, tried in this order past the depth limit. */
export const MAIL_SPLITS: readonly SplitDimension[] = [
	{ param: 'status', values: MAIL_STATUSES },
	{ param: 'mail_type', values: MAIL_TYPES },
	{ param: 'scan_status', values: SCAN_STATUSES },
	{ param: 'is_read', values: ['true', 'false'] },
];
