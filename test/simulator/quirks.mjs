// Quirks: the simulator answering the way a real service behind real networks might, where the
// spec leaves it open or a proxy or gateway stands between (docs/simulator.md, "Quirks"). Each
// quirk applies to the API requests it matches, on the wire: the simulator's own answer is still
// checked against the SDK's shapes first (conformance), then changed. That is the one, explicit
// exemption from the conformance check: a quirked answer is recorded on its request
// (`record.quirk`), never passed off as the simulator's own.
import { mailTypeToken, rng } from './data.mjs';

/** What a captive portal or login page in front of the API answers. */
export const CAPTIVE_PAGE =
	'<!DOCTYPE html><html><head><title>Sign in to the guest network</title></head><body><form action="/login"><input name="user"></form></body></html>';

/** The digits put before a mail id by `longIds` (19 digits: an id of 25 digits, far above 2^53). */
export const LONG_ID_PREFIX = '1234567890123456789';

/**
 * The quirks, by kind. `before`: answered instead of the API (the service never sees the request).
 * `after`: the request is carried out, then its answer is changed.
 */
export const QUIRK_KINDS = {
	/** 200 with an HTML page (a captive portal or login page); `status` to change the 200, `page` its text. */
	html: 'before',
	/** 200 with an empty body where a record is expected. */
	empty: 'before',
	/** 200 with a JSON string (`"OK"`) where a record is expected. */
	jsonString: 'before',
	/** 429 with `retryAfter` as its Retry-After header (seconds, an HTTP date or anything). */
	retryAfter: 'before',
	/** The request is carried out, then a gateway answers `status` (502) with `body` 'html' or 'json'. */
	gateway: 'after',
	/** A page envelope's total_count off by `by` (default 1), the same on every page. */
	totalCount: 'after',
	/** mail_type as the provider's own token (LARGELETTER), mail_status upper case (INBOX). */
	upperEnums: 'after',
	/** A scan's status (lists, scan records, mail items' scan) replaced by `status` while IN_PROCESS. */
	scanStatus: 'after',
	/** Fields the SDK does not declare added to every record (`fields`, default { x_trace: 'quirk' }). */
	extraFields: 'after',
	/** Optional fields whose value is null left out altogether. */
	absentOptional: 'after',
	/** Mail ids as bare JSON numbers of 25 digits; requests with them are read back (LONG_ID_PREFIX). */
	longIds: 'after',
	/** Any change: `transform(body, record)` returns the new body (undefined: unchanged). */
	transform: 'after',
};

/** The kinds a mixed run draws from by default: none of them lets a correct client lose or misfile. */
export const MIXED_KINDS = [
	'html',
	'empty',
	'jsonString',
	'retryAfter',
	'gateway',
	'extraFields',
	'absentOptional',
];

const matches = (rule, record) =>
	(!rule.method || rule.method === record.method) &&
	(!rule.path ||
		(rule.path instanceof RegExp ? rule.path.test(record.path) : record.path.includes(rule.path)));

/** Every object in a JSON value, depth first. */
function* objects(value) {
	if (Array.isArray(value)) for (const v of value) yield* objects(v);
	else if (value && typeof value === 'object') {
		yield value;
		for (const v of Object.values(value)) yield* objects(v);
	}
}

const SCAN_STATUS_KEYS = ['status', 'current_status'];

/**
 * The quirks of one simulator. Tests reach it as `sim.quirks`; over HTTP, `POST /_control/quirks`
 * (a rule, or `{ mix: {...} }`) and `DELETE /_control/quirks`.
 */
export class Quirks {
	constructor() {
		this.rules = [];
		this.mixed = undefined;
		/** Every quirk applied: { kind, method, path, seq }. */
		this.applied = [];
	}

	/**
	 * A rule: `{ kind, method?, path? (substring or RegExp), count? (default: every request), ...params }`.
	 * Rules are tried in the order added; the first that matches applies.
	 */
	add(rule) {
		if (!QUIRK_KINDS[rule.kind]) throw new Error(`Unknown quirk "${rule.kind}"`);
		this.rules.push({ count: Infinity, ...rule });
		return this;
	}

	/**
	 * Mixed mode: each API request, with probability `rate`, gets one quirk drawn from `kinds`
	 * (default MIXED_KINDS) by a generator seeded with `seed`, so a run replays with its seed.
	 * `retryAfter` draws short or odd values; `gateway` hits reads and writes alike.
	 * `only(record)`: requests that may be quirked (default all).
	 */
	mix({ seed, rate = 0.2, kinds = MIXED_KINDS, only = () => true }) {
		this.mixed = { seed, rate, kinds, only, random: rng(seed) };
		return this;
	}

	clear() {
		this.rules.length = 0;
		this.mixed = undefined;
		this.applied.length = 0;
	}

	get active() {
		return this.rules.length > 0 || this.mixed !== undefined;
	}

	/** The quirk for this request, or undefined (a matching rule's count is used up by it). */
	pick(record) {
		const rule = this.rules.find((r) => r.count > 0 && matches(r, record));
		if (rule) {
			rule.count--;
			return rule;
		}
		const mix = this.mixed;
		if (!mix || !mix.only(record)) return undefined;
		if (mix.random() >= mix.rate) return undefined;
		const kind = mix.kinds[Math.floor(mix.random() * mix.kinds.length)];
		const odd = ['0', '1', ' 0 ', 'soon', '-3', '0.2', new Date(Date.now() - 5000).toUTCString()];
		return {
			kind,
			...(kind === 'retryAfter' ? { retryAfter: odd[Math.floor(mix.random() * odd.length)] } : {}),
			...(kind === 'gateway'
				? {
						status: [502, 503, 504][Math.floor(mix.random() * 3)],
						body: mix.random() < 0.5 ? 'html' : 'json',
					}
				: {}),
		};
	}

	/** Undo `longIds` in what a client sends back (paths, query, body): the simulator's own ids. */
	static readBack(text) {
		return String(text).replace(new RegExp(`${LONG_ID_PREFIX}(\\d+)`, 'g'), '$1');
	}

	/** An answer instead of the API's (`before` quirks): { status, headers, text }. */
	static before(quirk) {
		switch (quirk.kind) {
			case 'html':
				return {
					status: quirk.status ?? 200,
					headers: { 'content-type': 'text/html; charset=utf-8' },
					text: quirk.page ?? CAPTIVE_PAGE,
				};
			case 'empty':
				return {
					status: quirk.status ?? 200,
					headers: { 'content-type': 'application/json' },
					text: '',
				};
			case 'jsonString':
				return {
					status: quirk.status ?? 200,
					headers: { 'content-type': 'application/json' },
					text: '"OK"',
				};
			case 'retryAfter':
				return {
					status: 429,
					headers: {
						'content-type': 'application/problem+json',
						...(quirk.retryAfter !== undefined ? { 'retry-after': String(quirk.retryAfter) } : {}),
					},
					text: JSON.stringify({
						type: 'about:blank',
						title: 'Too many requests',
						status: 429,
						code: 'rate_limited',
						request_id: 'req_quirk',
					}),
				};
			default:
				return undefined;
		}
	}

	/** The API's answer changed on the wire (`after` quirks): { status, headers, text }. */
	static after(quirk, record, status, body) {
		if (quirk.kind === 'gateway') {
			const code = quirk.status ?? 502;
			return quirk.body === 'json'
				? {
						status: code,
						headers: { 'content-type': 'application/json' },
						text: JSON.stringify({ message: 'Bad gateway: the upstream did not answer in time' }),
					}
				: {
						status: code,
						headers: { 'content-type': 'text/html' },
						text: `<html><head><title>${code} Bad Gateway</title></head><body><center><h1>${code} Bad Gateway</h1></center><hr><center>nginx</center></body></html>`,
					};
		}
		let out = body === undefined ? undefined : structuredClone(body);
		if (out !== undefined && status < 300) {
			if (quirk.kind === 'totalCount' && typeof out.total_count === 'number')
				out.total_count += quirk.by ?? 1;
			if (quirk.kind === 'upperEnums')
				for (const o of objects(out)) {
					if (typeof o.mail_type === 'string') o.mail_type = mailTypeToken(o.mail_type);
					if (typeof o.mail_status === 'string') o.mail_status = o.mail_status.toUpperCase();
				}
			if (quirk.kind === 'scanStatus')
				for (const o of objects(out))
					for (const key of SCAN_STATUS_KEYS)
						if (o[key] === 'IN_PROCESS') o[key] = quirk.status ?? 'PENDING';
			if (quirk.kind === 'extraFields')
				for (const o of objects(out))
					if ('id' in o || 'uuid' in o) Object.assign(o, quirk.fields ?? { x_trace: 'quirk' });
			if (quirk.kind === 'absentOptional')
				for (const o of objects(out))
					for (const [key, value] of Object.entries(o)) if (value === null) delete o[key];
			if (quirk.kind === 'transform') out = quirk.transform(out, record) ?? out;
		}
		let text = out === undefined ? '' : JSON.stringify(out);
		if (quirk.kind === 'longIds')
			text = text.replace(/"(id|mail_id)":"(\d{6,})"/g, `"$1":${LONG_ID_PREFIX}$2`);
		return {
			status,
			headers: text === '' ? {} : { 'content-type': 'application/json' },
			text,
		};
	}
}
