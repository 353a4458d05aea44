// nock-backed API mock that records every request (method, path, repeated-key query, body, headers).
import nock from 'nock';
import { ApiError, paginate } from '../simulator/paging.mjs';
import { DEFAULT_CREDENTIALS } from '../harness/n8n-core-harness.mjs';
import { report, requestProblems } from './conformance.mjs';

export const BASE = DEFAULT_CREDENTIALS.baseUrl;

export function mockApi(base = BASE) {
	const requests = [];
	const scope = nock(base);
	const api = {
		requests,
		/** Answer `method path` once (or `times`) with status/body/headers, or a function of the request; `delayMs` holds the answer back. */
		on(method, path, reply, { times = 1, persist = false, delayMs = 0 } = {}) {
			const interceptor = (persist ? nock(base).persist() : scope)
				.intercept((uri) => uri.split('?')[0] === path, method)
				.times(persist ? 1 : times);
			(delayMs ? interceptor.delay(delayMs) : interceptor).reply(function (uri, body) {
				const url = new URL(uri, base);
				const query = {};
				for (const [k, v] of url.searchParams) (query[k] ??= []).push(v);
				const request = {
					method,
					path: url.pathname,
					query,
					search: url.search,
					body: body === '' ? undefined : body,
					headers: this.req.headers,
				};
				requests.push(request);
				// Every API request a node sends is checked against the SDK's request shape.
				if (url.pathname.startsWith('/v1/'))
					report(`node request ${method} ${url.pathname}${url.search}`, requestProblems(request));
				const answer = typeof reply === 'function' ? reply(request) : reply;
				return [answer.status ?? 200, answer.body ?? '', answer.headers ?? {}];
			});
			return api;
		},
		done() {
			return scope.isDone();
		},
		/** Serve GET `path` like the real API: filters, signed cursors, depth limit (the simulator's code). */
		serveList(path, query) {
			return api.on(
				'GET',
				path,
				(request) => {
					const params = new URLSearchParams(request.search);
					try {
						return { body: paginate(path, params, query(params)) };
					} catch (error) {
						if (!(error instanceof ApiError)) throw error;
						return { status: error.status, body: problemOf(error) };
					}
				},
				{ persist: true },
			);
		},
	};
	return api;
}

export function resetNock() {
	nock.cleanAll();
	nock.disableNetConnect();
}

export function problemOf(error) {
	return {
		type: `https://errors.virtual-mailbox.test/${error.code}`,
		title: error.title,
		status: error.status,
		code: error.code,
		request_id: `req_${Math.random().toString(36).slice(2, 10)}`,
		...(error.detail ? { detail: error.detail } : {}),
		...(error.errors ? { errors: error.errors } : {}),
	};
}
