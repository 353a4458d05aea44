// GET /v1/mails and GET /v1/scans filters, search and sort, as the provider's SDK declares them
// (spec "GET /v1/mails"; SDK ScansListRequest). List values come as repeated keys
// (`status=inbox&status=archived`), as the SDK sends them.
import { validationError } from './paging.mjs';

export const MAIL_STATUSES = ['inbox', 'archived', 'quarantine', 'discard_request'];
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
];
export const SCAN_FILTERS = [
	'in_process',
	'cancelled',
	'rejected',
	'completed',
	'deleted',
	'restoring',
	'none',
];
export const SCAN_LIST_STATUSES = SCAN_FILTERS.filter((s) => s !== 'none');
export const SCAN_LIST_TYPES = { scan: 'SCAN_REQUEST', open: 'UNBOXING_REQUEST' };
const WINDOW_DAYS = { week: 7, month: 31, half_year: 183, year: 366 };

/** A list filter's values (repeated keys) as a Set, each one of `allowed`; undefined when not given. */
export function list(params, name, allowed) {
	// One value per key, as the SDK sends lists: `status=inbox,archived` is one unknown value (422).
	const values = params.getAll(name);
	for (const value of values) {
		if (!allowed.includes(value))
			throw validationError(`${name} must be one of ${allowed.join(', ')}`, name);
	}
	return values.length ? new Set(values) : undefined;
}

function one(params, name, allowed) {
	const values = params.getAll(name);
	if (values.length > 1) throw validationError(`${name} takes one value`, name);
	if (values.length === 0) return undefined;
	if (allowed && !allowed.includes(values[0]))
		throw validationError(`${name} must be one of ${allowed.join(', ')}`, name);
	return values[0];
}

/** Filter and sort mail items (each with mail_status, mail_type, scan, folder_id, arrival_date…). */
export function queryMails(items, params, now = Date.now()) {
	const status = list(params, 'status', MAIL_STATUSES);
	const types = list(params, 'mail_type', MAIL_TYPES);
	const scans = list(params, 'scan_status', SCAN_FILTERS);
	const folder = one(params, 'folder_id');
	if (folder !== undefined && !/^\d+$/.test(folder))
		throw validationError('folder_id must be an integer', 'folder_id');
	const search = one(params, 'search')?.toLowerCase();
	const sort = one(params, 'sort', ['newest', 'oldest']) ?? 'newest';
	const arrived = one(params, 'arrived', Object.keys(WINDOW_DAYS));
	const isRead = one(params, 'is_read', ['true', 'false']);
	const since = arrived ? now - WINDOW_DAYS[arrived] * 86_400_000 : undefined;

	const out = items.filter(
		(m) =>
			(!status || status.has(m.mail_status)) &&
			(!types || types.has(m.mail_type)) &&
			(!scans || scans.has(m.scan ? m.scan.status.toLowerCase() : 'none')) &&
			(folder === undefined || m.folder_id === folder) &&
			(isRead === undefined || String(m.is_read) === isRead) &&
			(since === undefined || dateMs(m.arrival_date) >= since) &&
			(!search ||
				[m.sender_name, m.recipient_name, m.id].some(
					(f) => f && String(f).toLowerCase().includes(search),
				)),
	);
	// Ties broken by id so the order is total and pages never overlap.
	const dir = sort === 'oldest' ? 1 : -1;
	// Mail without an arrival date (nullable in the API) sorts as the newest: the order stays total.
	const arrival = (m) => (m.arrival_date ? dateMs(m.arrival_date) : Number.MAX_SAFE_INTEGER);
	out.sort((a, b) => dir * (arrival(a) - arrival(b) || Number(a.id) - Number(b.id)));
	return out;
}

// Every page of a list query filters and sorts the whole list again (10,000 items and more in the
// depth-limit tests): each date text is parsed once, not once per comparison.
const parsedDates = new Map();
function dateMs(text) {
	let ms = parsedDates.get(text);
	if (ms === undefined) {
		if (parsedDates.size >= 200_000) parsedDates.clear();
		ms = Date.parse(text);
		parsedDates.set(text, ms);
	}
	return ms;
}

/**
 * Filter and sort scans (internal records, upper-case status and type). The SDK does not say what
 * `search` looks at, which date `scanned` counts from, nor the order of scans created at the same
 * second; the simulator's choices (docs/api.md, marked assumption): search looks at the scan id,
 * mail id, label, instruction and the mail item's sender and recipient; `scanned` counts from
 * `created_at`; newest first is by `created_at`, ties latest requested first, and `oldest` is
 * exactly the reverse. Without `sort` the order is newest first.
 */
export function queryScans(scans, params, { mails = [], now = Date.now() } = {}) {
	const status = list(params, 'status', SCAN_LIST_STATUSES);
	const types = list(params, 'type', Object.keys(SCAN_LIST_TYPES));
	const mailId = one(params, 'mail_id');
	const search = one(params, 'search')?.toLowerCase();
	const sort = one(params, 'sort', ['newest', 'oldest']) ?? 'newest';
	const scanned = one(params, 'scanned', Object.keys(WINDOW_DAYS));
	const since = scanned ? now - WINDOW_DAYS[scanned] * 86_400_000 : undefined;
	const typeValues = types && new Set([...types].map((t) => SCAN_LIST_TYPES[t]));
	const mailById = search ? new Map(mails.map((m) => [m.id, m])) : undefined;
	const matches = (s) => {
		if (!search) return true;
		const mail = mailById.get(s.mail_id);
		return [s.id, s.mail_id, s.label, s.instruction, mail?.sender_name, mail?.recipient_name].some(
			(f) => f && String(f).toLowerCase().includes(search),
		);
	};
	// Stable sort over the records reversed: same created_at, the one requested later comes first.
	const newest = [...scans].reverse().sort((a, b) => dateMs(b.created_at) - dateMs(a.created_at));
	const out = newest.filter(
		(s) =>
			(!status || status.has(s.status.toLowerCase())) &&
			(!typeValues || typeValues.has(s.type)) &&
			(mailId === undefined || s.mail_id === mailId) &&
			(since === undefined || dateMs(s.created_at) >= since) &&
			matches(s),
	);
	return sort === 'oldest' ? out.reverse() : out;
}
