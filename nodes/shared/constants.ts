/** Names that saved workflows depend on (docs/contract.md): never change them. */
export const CREDENTIAL_TYPE = 'virtualMailboxApi';

/** Production and sandbox servers of the provider (its public SDK lists these). */
export const SERVERS = {
	production: 'https://api.usglobalmail.com',
	sandbox: 'https://api-sandbox.usglobalmail.com',
} as const;

export type Environment = keyof typeof SERVERS | 'custom';

export const PAGE_SIZE_MAX = 100;
/** Pagination reaches only this deep into one result set. */
export const DEPTH_LIMIT = 10_000;

/** Query values of GET /v1/mails list filters, as the spec gives them. */
export const MAIL_STATUSES = ['inbox', 'archived', 'quarantine', 'discard_request'] as const;
export const MAIL_TYPES = [
	'letter',
	'large_letter',
	'magazine',
	'package',
	'softpak',
	'catalog',
	'distribution',
	'fulfillment',
	'inventory',
] as const;
export const SCAN_STATUSES = [
	'in_process',
	'cancelled',
	'rejected',
	'completed',
	'deleted',
	'restoring',
	'none',
] as const;
export const ADDRESS_TYPES = ['shipping', 'deposit'] as const;

/** GET /v1/scans filter values (the provider's SDK: ScansListRequest). */
export const SCAN_LIST_STATUSES = [
	'in_process',
	'cancelled',
	'rejected',
	'completed',
	'deleted',
	'restoring',
] as const;
export const SCAN_REQUEST_TYPES = ['scan', 'open'] as const;
/** The periods of GET /v1/mails `arrived` and GET /v1/scans `scanned`. */
export const LIST_PERIODS = ['week', 'month', 'half_year', 'year'] as const;
/**
 * Mail types POST /v1/sandbox/seed/mail takes (the SDK's SeedSandboxMailDto): upper case, and
 * LARGELETTER without the underscore of the REST filter value large_letter.
 */
export const SEED_MAIL_TYPES = [
	'LETTER',
	'LARGELETTER',
	'MAGAZINE',
	'CATALOG',
	'SOFTPAK',
	'PACKAGE',
] as const;
