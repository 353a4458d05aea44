import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';

const { encodeQuery, buildUrl, segment } = dist('nodes/shared/transport/query.js');
const { parseRetryAfter, isRetryable, nextDelay } = dist('nodes/shared/transport/retry.js');
const { redact, asProblem } = dist('nodes/shared/transport/errors.js');
const { unwrapFolderList } = dist('nodes/shared/folders.js');

describe('query encoding (one place)', () => {
	test('lists are repeated keys; empty values are left out', () => {
		expect(
			encodeQuery({
				status: ['inbox', 'archived'],
				search: 'a b',
				sort: undefined,
				x: null,
				y: '',
				z: [],
				limit: 100,
			}),
		).toBe('status=inbox&status=archived&search=a+b&limit=100');
	});
	test('urls and path segments', () => {
		expect(buildUrl('http://h/', '/v1/mails', { limit: 1 })).toBe('http://h/v1/mails?limit=1');
		expect(segment('a/../b?c')).toBe('a%2F..%2Fb%3Fc');
	});
});

describe('retry policy', () => {
	const now = Date.parse('2026-11-22T00:00:00Z');
	test('Retry-After as seconds or HTTP date', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter('0.5', now)).toBe(500);
		expect(parseRetryAfter('Sun, 22 Nov 2026 00:00:10 GMT', now)).toBe(10_000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 00:00:10 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
	test('what is retried', () => {
		expect(isRetryable('POST', { kind: 'status', status: 429 })).toBe(true);
		expect(isRetryable('POST', { kind: 'status', status: 500 })).toBe(false);
		expect(isRetryable('PATCH', { kind: 'network' })).toBe(false);
		expect(isRetryable('GET', { kind: 'network' })).toBe(true);
		expect(isRetryable('GET', { kind: 'status', status: 503 })).toBe(true);
		expect(isRetryable('GET', { kind: 'status', status: 404 })).toBe(false);
	});
	test('exponential backoff with jitter inside the budget', () => {
		const policy = { maxAttempts: 5, budgetMs: 10_000, baseDelayMs: 1000, maxDelayMs: 4000 };
		const delays = [1, 2, 3, 4, 5].map((attempt) =>
			nextDelay('GET', { kind: 'network' }, attempt, 0, now, () => 1, policy),
		);
		expect(delays).toEqual([1000, 2000, 4000, 4000, undefined]);
		expect(nextDelay('GET', { kind: 'network' }, 1, 0, now, () => 0, policy)).toBe(500);
		expect(nextDelay('GET', { kind: 'network' }, 3, 7000, now, () => 1, policy)).toBeUndefined();
		expect(
			nextDelay(
				'GET',
				{ kind: 'status', status: 429, retryAfter: '2' },
				1,
				0,
				now,
				() => 1,
				policy,
			),
		).toBe(2000);
		expect(
			nextDelay(
				'GET',
				{ kind: 'status', status: 429, retryAfter: '20' },
				1,
				0,
				now,
				() => 1,
				policy,
			),
		).toBeUndefined();
	});
});

describe('errors and lists', () => {
	test('redact scrubs every string, deeply', () => {
		expect(redact({ a: 'key sk_1234 here', b: ['sk_1234'], c: { d: 1 } }, ['sk_1234', ''])).toEqual(
			{ a: 'key [redacted] here', b: ['[redacted]'], c: { d: 1 } },
		);
	});
	test('asProblem accepts objects and JSON text, nothing else', () => {
		expect(asProblem('{"title":"T"}')).toEqual({ title: 'T' });
		expect(asProblem('<html>')).toBeUndefined();
		expect(asProblem([1])).toBeUndefined();
	});
	test('folder lists: bare array or an object holding one', () => {
		expect(unwrapFolderList([{ id: '1' }])).toEqual([{ id: '1' }]);
		expect(unwrapFolderList({ data: [{ id: '1' }] })).toEqual([{ id: '1' }]);
		expect(unwrapFolderList({ whatever: [{ id: '2' }], count: 1 })).toEqual([{ id: '2' }]);
		expect(unwrapFolderList({ a: [], b: [] })).toBeUndefined();
		expect(unwrapFolderList('x')).toBeUndefined();
	});
});
