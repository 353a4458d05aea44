import { retryPolicy } from '../state/retryPolicy';

/**
 * Retry policy, pure (its numbers live in state/retryPolicy). A request the server may already
 * have acted on is never retried blindly: 5xx, network errors and successes that are not the
 * record asked for are retried for GET only; 429 (the server did not act) for any method.
 */
export type Failure =
	| { kind: 'status'; status: number; retryAfter?: string }
	| { kind: 'network' }
	/** A success that is not the record asked for (a proxy's page): retried like a 5xx. */
	| { kind: 'notRecord' };

/** Seconds (`"3"`) or an HTTP date; returns milliseconds to wait, or undefined when unusable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// An HTTP date has a day or month name: Date.parse would also read "-5" or "2026" as dates.
	if (!/[a-z]{3}/i.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

export function isRetryable(method: string, failure: Failure): boolean {
	if (failure.kind === 'status' && failure.status === 429) return true;
	if (method.toUpperCase() !== 'GET') return false;
	return (
		failure.kind === 'network' ||
		failure.kind === 'notRecord' ||
		(failure.status >= 500 && failure.status <= 599) ||
		failure.status === 408
	);
}

/** `attempt`: the one that just failed (1-based); `waitedMs`: time already spent waiting. */
export function nextDelay(
	method: string,
	failure: Failure,
	attempt: number,
	waitedMs: number,
	now: number,
	random: () => number = Math.random,
	policy = retryPolicy,
): number | undefined {
	if (!isRetryable(method, failure) || attempt >= policy.maxAttempts) return undefined;
	// Retry-After of 0 or a past date still waits a little: the server is overloaded right now.
	const retryAfter =
		failure.kind === 'status' ? parseRetryAfter(failure.retryAfter, now) : undefined;
	const asked = retryAfter === undefined ? undefined : Math.max(retryAfter, policy.baseDelayMs / 2);
	// No Retry-After: exponential backoff with equal jitter (half fixed, half random).
	const delay =
		asked ??
		Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * (0.5 + random() / 2);
	if (waitedMs + delay > policy.budgetMs) return undefined;
	return Math.round(delay);
}
