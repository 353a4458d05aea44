import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { retryPolicy } from '../state/retryPolicy';

/** Problem details body of the spec (every field optional here: servers and proxies vary). */
export interface ProblemDetails {
	type?: string;
	title?: string;
	status?: number;
	code?: string;
	request_id?: string;
	detail?: string;
	instance?: string;
	errors?: Array<{ field?: string; message?: string; code?: string }>;
}

const HINTS: Record<number, string> = {
	401:
		'Check the API key in the credential and that its Environment ' +
		'matches the key (live keys for Production, test keys for Sandbox).',
	403: 'The API key is valid but not allowed to do this; check its permissions or the account plan.',
	404: 'Check the ID: the item does not exist or belongs to another account.',
	409:
		'The item is not in a state that allows this (for ' +
		'example cancelling a scan that is no longer in process).',
	429:
		'The rate limit was hit and retries ran out of ' +
		'time; run fewer items at once or add a Wait node.',
};

/** Where to look whether a write was done, by its path: the list or record that would show it. */
const CHECKS: Array<[RegExp, string]> = [
	[/^\/v1\/scans$/, "list the mail item's scans (Scan → Get Many, Mail ID filter)"],
	[/^\/v1\/scans\//, 'get the scan (Scan → Get)'],
	[/^\/v1\/sandbox\/scans\//, 'get the scan (Scan → Get)'],
	[/^\/v1\/sandbox\/seed/, 'list the mail (Mail → Get Many, newest first)'],
	[/^\/v1\/mails\//, 'get the mail item (Mail → Get)'],
	[/^\/v1\/folders/, 'list the folders (Folder → Get Many)'],
	[/^\/v1\/addresses/, 'list the addresses (Address → Get Many)'],
	[/^\/v1\/bank-accounts/, 'list the bank accounts (Bank Account → Get Many)'],
];

/** Pure: the service may already have acted on the write: where to check before a re-run. */
export function mayHaveActed(method: string, path: string): string {
	const check = CHECKS.find(([pattern]) => pattern.test(path))?.[1] ?? 'look in the account';
	return (
		`Not retried: the service may already have acted on ${method} ${path}. ` +
		`Check first (${check}) before running it again, or it may be done twice.`
	);
}

/** Pure: a wait for people: "45 s", "12 min", "3 h", "2 days". */
export function durationText(ms: number): string {
	const s = Math.round(ms / 1000);
	if (s < 120) return `${s} s`;
	if (s < 2 * 3600) return `${Math.round(s / 60)} min`;
	if (s < 2 * 86_400) return `${Math.round(s / 3600)} h`;
	if (s < 3 * 365 * 86_400) return `${Math.round(s / 86_400)} days`;
	return 'years';
}

/** Only a refusal (4xx but 408) proves a write was not done. */
export function writeOutcomeUnknown(method: string, status: number): boolean {
	return method.toUpperCase() !== 'GET' && (status >= 500 || status === 408);
}

/** Replace every secret in every string of a value (deep), so errors cannot echo them. */
export function redact<T>(value: T, secrets: readonly string[]): T {
	const live = secrets.filter((s) => typeof s === 'string' && s.length >= 4);
	if (live.length === 0) return value;
	const scrub = (v: unknown): unknown => {
		if (typeof v === 'string') return live.reduce((text, s) => text.split(s).join('[redacted]'), v);
		if (Array.isArray(v)) return v.map(scrub);
		if (v && typeof v === 'object') {
			const out: IDataObject = {};
			for (const [k, inner] of Object.entries(v)) out[k] = scrub(inner) as IDataObject[string];
			return out;
		}
		return v;
	};
	return scrub(value) as T;
}

/** Longest title or detail kept in an error: a proxy's HTML page must not become the message. */
export const MAX_PROBLEM_TEXT = 1_000;

function clip(value: unknown): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return text.length > MAX_PROBLEM_TEXT
		? `${text.slice(0, MAX_PROBLEM_TEXT)}… (${text.length - MAX_PROBLEM_TEXT} more characters)`
		: text;
}

/**
 * Pure: an error body → problem details, or undefined. A malformed body is cut to what fits, so
 * that status and request_id are never lost to it.
 */
export function asProblem(body: unknown): ProblemDetails | undefined {
	let value = body;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const raw = value as Record<string, unknown>;
	if (typeof raw.title !== 'string' && typeof raw.detail !== 'string') return undefined;
	const errors = Array.isArray(raw.errors)
		? (raw.errors as unknown[])
				.filter(
					(e): e is Record<string, unknown> =>
						Boolean(e) && typeof e === 'object' && !Array.isArray(e),
				)
				.map((e) => ({ field: clip(e.field), message: clip(e.message), code: clip(e.code) }))
		: undefined;
	return {
		...(raw as ProblemDetails),
		title: clip(raw.title),
		detail: clip(raw.detail),
		code: clip(raw.code),
		request_id: clip(raw.request_id),
		errors,
	};
}

/** Pure: a hint when the key's prefix looks like the other environment's (live vs test). */
export function keyEnvironmentHint(
	environment: string | undefined,
	apiKey: string | undefined,
): string | undefined {
	const key = String(apiKey ?? '').toLowerCase();
	const looksLive = /^(\w+_)?live[_-]/.test(key);
	const looksTest = /^(\w+_)?test[_-]/.test(key);
	if (environment === 'production' && looksTest) {
		return (
			"The key looks like a sandbox (test) key but the credential's " +
			'Environment is Production: switch Environment to Sandbox.'
		);
	}
	if (environment === 'sandbox' && looksLive) {
		return (
			"The key looks like a production (live) key but the credential's " +
			'Environment is Sandbox: switch Environment to Production.'
		);
	}
	return undefined;
}

export interface ErrorContext {
	method: string;
	path: string;
	itemIndex?: number;
	hadCursor?: boolean;
	secrets: readonly string[];
	/** Extra lines for a 401, such as a likely environment mismatch. */
	authHint?: string;
	/** Attempts made (the failing one included), once the request is given up. */
	attempts?: number;
	/** The last answer's Retry-After in ms, when it parses. */
	askedWaitMs?: number;
	retryAfter?: string;
}

/** Carries title, detail, field errors, code and request_id. */
export function problemError(
	node: INode,
	status: number,
	body: unknown,
	ctx: ErrorContext,
): NodeApiError {
	const problem = asProblem(body) ?? {};
	const title = problem.title ?? `HTTP ${status}`;
	let message = problem.detail ? `${title}: ${problem.detail}` : title;
	if (status === 422 && problem.code === 'validation_error' && ctx.hadCursor) {
		message =
			`The API rejected the pagination cursor (${message}). Cursors are bound to the exact ` +
			'query and reach only the first 10,000 items; the query must not change while paging.';
	}
	const lines: string[] = [];
	for (const fieldError of problem.errors ?? []) {
		lines.push(
			`${fieldError.field ?? '(body)'}: ` +
				`${fieldError.message ?? 'invalid'}${fieldError.code ? ` (${fieldError.code})` : ''}`,
		);
	}
	const writeUnknown = writeOutcomeUnknown(ctx.method, status);
	// First line: what the user must know before running again.
	if (writeUnknown) lines.unshift(mayHaveActed(ctx.method, ctx.path));
	if (status === 401 && ctx.authHint) lines.push(ctx.authHint);
	else if (status === 429 && ctx.askedWaitMs !== undefined) lines.push(waitHint(ctx));
	else if (status === 429 && ctx.retryAfter !== undefined && ctx.attempts === 1)
		lines.push(
			'The API asked to wait with a Retry-After this node cannot ' +
				`read ("${String(ctx.retryAfter).slice(0, 40)}") and no ` +
				'retry was made; run fewer items at once or add a Wait node.',
		);
	else if (HINTS[status]) lines.push(HINTS[status]);
	lines.push(
		`${ctx.method} ${ctx.path} → ${status}${problem.code ? ` ${problem.code}` : ''}${problem.request_id ? `, request_id ${problem.request_id}` : ''}`,
	);

	const safe = redact({ problem, message, description: lines.join('\n') }, ctx.secrets);
	const error = new NodeApiError(node, { ...safe.problem, message: safe.message } as JsonObject, {
		message: safe.message,
		description: safe.description,
		httpCode: String(status),
		itemIndex: ctx.itemIndex,
	});
	Object.assign(error.context, {
		status,
		code: safe.problem.code,
		requestId: safe.problem.request_id,
		title: safe.problem.title,
		detail: safe.problem.detail,
		fieldErrors: safe.problem.errors,
	});
	return error;
}

/** A 429 whose Retry-After was too long to wait for. */
function waitHint(ctx: ErrorContext): string {
	const asked =
		`The API asked to wait ${durationText(ctx.askedWaitMs!)} ` +
		`(Retry-After: ${String(ctx.retryAfter).slice(0, 40)})`;
	const retried =
		(ctx.attempts ?? 1) > 1
			? `after ${(ctx.attempts ?? 1) - 1} ${ctx.attempts === 2 ? 'retry' : 'retries'}`
			: 'and no retry was made';
	return (
		`${asked}, longer than this node waits for a request ` +
		`(${durationText(retryPolicy.budgetMs)}), so it stopped ${retried}. Run the ` +
		'workflow again after that time, or add a Wait node before this one.'
	);
}

/** Without the request config, which holds the Authorization header. */
export function networkError(
	node: INode,
	cause: unknown,
	ctx: ErrorContext,
	stopped = false,
): NodeApiError {
	const raw = cause as { message?: string; code?: string; cause?: { code?: string } };
	const code = raw?.code ?? raw?.cause?.code;
	const text = redact(`${raw?.message ?? 'Network error'}`, ctx.secrets);
	// No `code` in the response object: n8n would swap our message for a generic one per code.
	// The node's own deadline ended (or it stopped waiting), not the network.
	const error = new NodeApiError(node, { message: text } as JsonObject, {
		message: stopped
			? `Stopped waiting for the Virtual Mailbox API (${ctx.method} ` +
				`${ctx.path}): the time allowed for it ran out`
			: `Could not reach the Virtual Mailbox API (${ctx.method} ${ctx.path}): ${text}`,
		description: stopped
			? `${ctx.method === 'GET' ? 'Not retried: the time allowed ran out.' : mayHaveActed(ctx.method, ctx.path)}`
			: `${code ? `${code}. ` : ''}${ctx.method === 'GET' ? 'The request was retried and kept failing.' : mayHaveActed(ctx.method, ctx.path)}`,
		itemIndex: ctx.itemIndex,
	});
	error.context.code = code;
	return error;
}
