// GET /v1/mails filters, search and sort (spec "GET /v1/mails"), over the simulator's mail items.
import { validationError } from './paging.mjs';

export const MAIL_STATUSES = ['inbox', 'archived', 'quarantine', 'discard_request'];
export const MAIL_TYPES = ['letter', 'large_letter', 'magazine', 'package', 'softpak', 'catalog', 'distribution', 'fulfillment', 'inventory'];
export const SCAN_FILTERS = ['in_process', 'cancelled', 'rejected', 'completed', 'deleted', 'restoring', 'none'];
const ARRIVED_DAYS = { week: 7, month: 31, half_year: 183, year: 366 };

function list(params, name, allowed) {
	const values = params.getAll(name).flatMap((v) => v.split(','));
	for (const value of values) {
		if (!allowed.includes(value)) throw validationError(`${name} must be one of ${allowed.join(', ')}`, name);
	}
	return values.length ? new Set(values) : undefined;
}

function one(params, name, allowed) {
	const values = params.getAll(name);
	if (values.length > 1) throw validationError(`${name} takes one value`, name);
	if (values.length === 0) return undefined;
	if (allowed && !allowed.includes(values[0])) throw validationError(`${name} must be one of ${allowed.join(', ')}`, name);
	return values[0];
}

/** Filter and sort mail items (each with mail_status, mail_type, scan, folder_id, arrival_date…). */
export function queryMails(items, params, now = Date.now()) {
	const status = list(params, 'status', MAIL_STATUSES);
	const types = list(params, 'mail_type', MAIL_TYPES);
	const scans = list(params, 'scan_status', SCAN_FILTERS);
	const folder = one(params, 'folder_id');
	if (folder !== undefined && !/^\d+$/.test(folder)) throw validationError('folder_id must be an integer', 'folder_id');
	const search = one(params, 'search')?.toLowerCase();
	const sort = one(params, 'sort', ['newest', 'oldest']) ?? 'newest';
	const arrived = one(params, 'arrived', Object.keys(ARRIVED_DAYS));
	const isRead = one(params, 'is_read', ['true', 'false']);
	const since = arrived ? now - ARRIVED_DAYS[arrived] * 86_400_000 : undefined;

	const out = items.filter(
		(m) =>
			(!status || status.has(m.mail_status)) &&
			(!types || types.has(m.mail_type)) &&
			(!scans || scans.has(m.scan ? m.scan.status.toLowerCase() : 'none')) &&
			(folder === undefined || m.folder_id === folder) &&
			(isRead === undefined || String(m.is_read) === isRead) &&
			(since === undefined || Date.parse(m.arrival_date) >= since) &&
			(!search || [m.sender_name, m.recipient_name, m.id].some((f) => f && String(f).toLowerCase().includes(search))),
	);
	// Ties broken by id so the order is total and pages never overlap.
	const dir = sort === 'oldest' ? 1 : -1;
	out.sort((a, b) => dir * (Date.parse(a.arrival_date) - Date.parse(b.arrival_date) || Number(a.id) - Number(b.id)));
	return out;
}
