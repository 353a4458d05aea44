export type QueryValue = string | number | boolean | readonly string[] | undefined | null;
export type Query = Record<string, QueryValue>;

/**
 * How list-valued query parameters go on the wire. The spec leaves it "not shown"; the provider
 * accepts repeated keys (`status=inbox&status=archived`). Change it here and nowhere else.
 */
export const LIST_ENCODING: 'repeat' | 'comma' = 'repeat';

/** Pure: query object → `a=1&b=x&b=y` (empty lists, undefined and null are left out). */
export function encodeQuery(query: Query = {}): string {
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(query)) {
		if (value === undefined || value === null || value === '') continue;
		if (Array.isArray(value)) {
			if (value.length === 0) continue;
			if (LIST_ENCODING === 'comma') params.append(key, value.join(','));
			else for (const entry of value) params.append(key, String(entry));
		} else {
			params.append(key, String(value));
		}
	}
	return params.toString();
}

export function buildUrl(baseUrl: string, path: string, query?: Query): string {
	const qs = encodeQuery(query);
	return `${baseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
}

/** encodeURIComponent leaves "." alone: an id of dots only is encoded by hand. */
export function segment(id: string): string {
	return /^\.+$/.test(id) ? id.replace(/\./g, '%2E') : encodeURIComponent(id);
}

/** Pure: the filters `part` sets beyond `whole` (sort and unset ones aside). */
export function addedFilters(part: Query, whole: Query = {}): string[] {
	const set = (value: unknown) =>
		value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);
	return Object.keys(part).filter(
		(key) =>
			key !== 'sort' && set(part[key]) && JSON.stringify(part[key]) !== JSON.stringify(whole[key]),
	);
}

/** Pure: a part of a divided list for messages, e.g. `status=inbox, is_read=true`. */
export function partLabel(part: Query, whole: Query = {}): string {
	return addedFilters(part, whole)
		.map((key) => {
			const value = part[key];
			return `${key}=${Array.isArray(value) ? value.join('|') : String(value)}`;
		})
		.join(', ');
}
