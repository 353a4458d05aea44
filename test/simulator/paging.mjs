// Cursor pagination exactly as the spec's "Pagination rules": opaque signed cursors bound to the
// endpoint and query, limit default 25 capped at 100, total_count, and the 10,000-item depth limit.
// Two cursor modes: 'offset' (the default) counts positions, so items leaving the list above a
// cursor push the rest past it; 'keyset' remembers the last item's order key and goes on after it,
// wherever it now is. Both refuse to list deeper than DEPTH_LIMIT items.
import crypto from 'node:crypto';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
export const DEPTH_LIMIT = 10_000;
const SECRET = crypto.randomBytes(16);

export class ApiError extends Error {
	constructor(status, code, title, detail, errors) {
		super(detail ?? title);
		Object.assign(this, { status, code, title, detail, errors });
	}
}

export const validationError = (detail, field) =>
	new ApiError(
		422,
		'validation_error',
		'Validation failed',
		detail,
		field ? [{ field, message: detail, code: 'invalid' }] : undefined,
	);

/** Canonical form of a query without limit and cursor: what a cursor is bound to. */
export function canonicalQuery(params) {
	const pairs = [];
	for (const [key, value] of params)
		if (key !== 'cursor' && key !== 'limit') pairs.push([key, value]);
	pairs.sort((a, b) =>
		a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1,
	);
	return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

const sign = (text) =>
	crypto.createHmac('sha256', SECRET).update(text).digest('base64url').slice(0, 22);

export function makeCursor(endpoint, query, offset, key) {
	const payload = Buffer.from(
		JSON.stringify({ e: endpoint, q: query, o: offset, ...(key ? { k: key } : {}) }),
	).toString('base64url');
	return `${payload}.${sign(payload)}`;
}

export function readCursor(cursor, endpoint, query) {
	return readCursorState(cursor, endpoint, query).o;
}

/** The cursor's items listed so far (o) and, for keyset cursors, the last one's order key (k). */
function readCursorState(cursor, endpoint, query) {
	const [payload, signature] = String(cursor).split('.');
	if (!payload || !signature || sign(payload) !== signature)
		throw validationError('The cursor is invalid or was altered', 'cursor');
	let decoded;
	try {
		decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
	} catch {
		throw validationError('The cursor is invalid', 'cursor');
	}
	if (decoded.e !== endpoint)
		throw validationError('The cursor belongs to another endpoint', 'cursor');
	if (decoded.q !== query)
		throw validationError('The cursor was issued for a different query', 'cursor');
	if (decoded.o >= DEPTH_LIMIT)
		throw validationError('The cursor is beyond the 10,000-item pagination depth', 'cursor');
	return decoded;
}

export function parseLimit(params) {
	const raw = params.get('limit');
	if (raw === null) return DEFAULT_LIMIT;
	if (!/^\d+$/.test(raw) || Number(raw) < 1)
		throw validationError('limit must be a positive integer', 'limit');
	return Math.min(MAX_LIMIT, Number(raw));
}

/**
 * One page of `items` (already filtered and sorted) for this endpoint and URLSearchParams. With
 * `keyset` ({ keyOf(item), after(key, otherKey) }: whether key comes after otherKey in the list's
 * order) the cursor carries the last item's key instead of counting on its position.
 */
export function paginate(endpoint, params, items, keyset) {
	const query = canonicalQuery(params);
	const limit = parseLimit(params);
	const cursor = params.get('cursor');
	const { o: listed, k: lastKey } = cursor ? readCursorState(cursor, endpoint, query) : { o: 0 };
	const start = keyset && lastKey ? firstAfter(items, lastKey, keyset) : listed;
	const end = Math.min(start + limit, items.length, start + DEPTH_LIMIT - listed);
	const more = end < items.length && listed + (end - start) < DEPTH_LIMIT;
	return {
		data: items.slice(start, end),
		next_cursor: more
			? makeCursor(
					endpoint,
					query,
					listed + (end - start),
					keyset ? keyset.keyOf(items[end - 1]) : undefined,
				)
			: null,
		total_count: items.length,
	};
}

/** The position of the first item after `key` in the list's order (binary search). */
function firstAfter(items, key, { keyOf, after }) {
	let low = 0;
	let high = items.length;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (after(keyOf(items[mid]), key)) high = mid;
		else low = mid + 1;
	}
	return low;
}
