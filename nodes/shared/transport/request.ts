import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestMethods,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../constants';
import { retryPolicy } from '../state/retryPolicy';
import { type ApiContext, baseUrlOf, getApiCredentials } from './credentials';
import {
	type ErrorContext,
	keyEnvironmentHint,
	mayHaveActed,
	networkError,
	problemError,
} from './errors';
import { readCapped } from './body';
import { describeReceived, isRecord, readBody, type Received, receivedText } from './answer';
import { beforeDeadline, type Deadline, deadlineIn } from './deadline';
import { buildUrl, type Query } from './query';
import type { RequestPool } from './pool';
import { nextDelay, parseRetryAfter, type Failure } from './retry';

/** The body of a successful answer larger than retryPolicy.maxAnswerBytes (not read). */
const TOO_LARGE: object = Object.freeze({ tooLarge: true });

export interface RequestOptions {
	query?: Query;
	body?: IDataObject;
	itemIndex?: number;
	/** Strings that must never appear in an error (for example a bank account number being sent). */
	secrets?: string[];
	/** Shared bound on requests in flight (a concurrent read); each attempt holds one slot. */
	pool?: RequestPool;
	/** Order among requests waiting for a slot of `pool`: higher goes first. */
	priority?: () => number;
	/** Stops the request (and its retries) when it aborts: the caller no longer wants the answer. */
	signal?: AbortSignal;
	/** A JSON list is an acceptable answer too (a page of an older list shape). */
	allowList?: boolean;
}

/**
 * The one place that talks HTTP to the API. Integers beyond 2^53 come back as strings of their
 * digits. A success must be the JSON object asked for (a proxy's or login page is an error naming
 * what came back); only a DELETE may answer with an empty body, which gives `{}`.
 */
export async function apiRequest(
	this: ApiContext,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const credentials = await getApiCredentials.call(this);
	const baseUrl = baseUrlOf(credentials);
	if (!/^https?:\/\//i.test(baseUrl)) {
		const problem =
			baseUrl === ''
				? 'is empty: with Environment Custom, set it (for example http://127.0.0.1:4010)'
				: `"${baseUrl}" is not an http(s) address`;
		throw new NodeOperationError(this.getNode(), `The credential's Base URL ${problem}`, {
			itemIndex: options.itemIndex,
		});
	}
	const url = buildUrl(baseUrl, path, options.query);
	const context: ErrorContext = {
		method,
		path,
		itemIndex: options.itemIndex,
		hadCursor: Boolean(options.query?.cursor),
		secrets: [credentials.apiKey ?? '', ...(options.secrets ?? [])],
		authHint: keyEnvironmentHint(credentials.environment, credentials.apiKey),
	};

	// The credential read above is handed to n8n, which would otherwise load (in n8n: query and
	// decrypt) it again for every request: a Return All of 100 pages would do that 100 times.
	const { id, name = '' } = this.getNode().credentials?.[CREDENTIAL_TYPE] ?? {};
	const credentialsDecrypted = {
		id: id ?? '',
		name,
		type: CREDENTIAL_TYPE,
		data: credentials as ICredentialDataDecryptedObject,
	};
	let received: Received | undefined;
	const check = (answer: IN8nHttpFullResponse, attempt: number) => {
		const body = answer.body as unknown;
		if (answer.statusCode >= 300 || body === TOO_LARGE) return undefined;
		if ((body === '' || body === undefined) && method === 'DELETE') return undefined;
		if (isRecord(body, options.allowList)) return undefined;
		return notARecordError(this, answer.statusCode, body, received, context, attempt);
	};
	const response = await sendWithRetries(this, method, context, { ...options, check }, async () => {
		// Each attempt, body included, ends within timeoutMs: n8n's own `timeout` only bounds silence.
		// The body is read here as a stream, since n8n hands an action node's `abortSignal` over to
		// the execution's own cancel signal: closing the stream is what ends a dribbling answer.
		const deadline = deadlineIn(retryPolicy.timeoutMs, options.signal);
		return await beforeDeadline(
			deadline,
			(async () => {
				const answer = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					CREDENTIAL_TYPE,
					{
						method,
						url,
						body: options.body,
						json: true,
						encoding: 'stream',
						returnFullResponse: true,
						ignoreHttpStatusErrors: true,
						// Never followed: the key and bodies go to the configured server only.
						disableFollowRedirect: true,
						timeout: retryPolicy.timeoutMs,
						abortSignal: deadline.signal,
					},
					{ credentialsDecrypted },
				)) as IN8nHttpFullResponse;
				const raw = await readCapped(answer.body, retryPolicy.maxAnswerBytes, deadline.signal);
				// Not retried: the same answer would come again. An error status keeps its status.
				if (raw === undefined) {
					answer.body = answer.statusCode < 300 ? TOO_LARGE : '';
					return answer;
				}
				const read = readBody(raw);
				answer.body = read.body;
				received = describeReceived(
					answer.statusCode,
					headerOf(answer, 'content-type'),
					read.text,
					read.json,
					context.secrets,
				);
				return answer;
			})(),
		);
	});
	if (response.statusCode >= 300 && response.statusCode < 400)
		throw redirectError(this, response, context);
	const body = response.body;
	if (body === TOO_LARGE) {
		throw new NodeOperationError(
			this.getNode(),
			`The Virtual Mailbox API's answer to ${method} ${path} is larger ` +
				`than ${sizeText(retryPolicy.maxAnswerBytes)} and was not read`,
			{
				itemIndex: options.itemIndex,
				description:
					method === 'GET'
						? "No API answer is that large: check that the credential's Base URL " +
							'is the Virtual Mailbox API, not another server or a proxy page.'
						: "No API answer is that large: check that the credential's Base URL is the " +
							'Virtual Mailbox API. The request was sent: check before running again.',
			},
		);
	}
	// Anything but a record was refused by `check`; a DELETE's empty answer is the one exception.
	return (body === '' || body === undefined ? {} : body) as IDataObject;
}

/**
 * A success whose body is not the record asked for. A read asks again as after a 5xx (a proxy's
 * page is often passing); a write is never repeated and says it may have been done.
 */
function notARecordError(
	ctx: ApiContext,
	status: number,
	body: unknown,
	received: Received | undefined,
	context: ErrorContext,
	attempts: number,
): NodeApiError {
	const what = received
		? receivedText(received, body)
		: `${typeof body === 'string' ? 'text' : `a JSON ${typeof body}`}`;
	const lines = [
		'A proxy, captive portal or login page may be answering in place of the API: ' +
			"check the credential's Base URL and the network between n8n and the API.",
	];
	if (context.method !== 'GET') lines.unshift(mayHaveActed(context.method, context.path));
	else if (attempts > 1)
		lines.push(`Asked ${attempts} times, with the same kind of answer each time.`);
	lines.push(`${context.method} ${context.path} → ${status}`);
	const error = new NodeApiError(ctx.getNode(), { message: `HTTP ${status}` } as JsonObject, {
		message:
			`The Virtual Mailbox API answered ${context.method} ${context.path} ` +
			`with ${status} but not the JSON record expected: ${what}`,
		description: lines.join('\n'),
		httpCode: String(status),
		itemIndex: context.itemIndex,
	});
	Object.assign(error.context, { status, notARecord: true, contentType: received?.contentType });
	return error;
}

/**
 * Pure: a JSON body parsed, as n8n would with `json: true`; text that is not JSON stays text, an
 * empty body is ''. A leading UTF-8 byte-order mark is dropped first, as axios does.
 */
export function parsedBody(raw: Buffer | undefined): IN8nHttpFullResponse['body'] {
	return readBody(raw).body;
}

function sizeText(bytes: number): string {
	return bytes >= 1024 * 1024
		? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`
		: `${Math.round(bytes / 1024)} KB`;
}

export function headerOf(response: IN8nHttpFullResponse, name: string): string {
	const value = response.headers?.[name];
	return String(Array.isArray(value) ? value[0] : (value ?? ''));
}

/** Names the target's origin only: its path or query may carry tokens. */
function redirectError(
	ctx: ApiContext,
	response: IN8nHttpFullResponse,
	context: ErrorContext,
): NodeApiError {
	let target = 'another address';
	try {
		target = new URL(headerOf(response, 'location')).origin;
	} catch {
		/* no usable Location */
	}
	return new NodeApiError(ctx.getNode(), { message: `HTTP ${response.statusCode}` } as JsonObject, {
		message:
			`The API answered ${context.method} ${context.path} with a ` +
			`redirect (${response.statusCode}) to ${target}; not followed`,
		description:
			'Requests carrying the API key and their bodies go only to the ' +
			'server of the credential. Check the Environment or Base URL.',
		httpCode: String(response.statusCode),
		itemIndex: context.itemIndex,
	});
}

/** Sends until success or a failure retry.ts does not retry; every HTTP call goes through here. */
export async function sendWithRetries(
	ctx: ApiContext,
	method: IHttpRequestMethods,
	context: ErrorContext,
	{
		pool,
		priority,
		signal,
		deadline,
		check,
	}: Pick<RequestOptions, 'pool' | 'priority' | 'signal'> & {
		deadline?: Deadline;
		/** The error for a success that is not what was asked for (retried for GET), or undefined. */
		check?: (response: IN8nHttpFullResponse, attempt: number) => Error | undefined;
	},
	send: () => Promise<IN8nHttpFullResponse>,
): Promise<IN8nHttpFullResponse> {
	let waitedMs = 0;
	// A wait between attempts ends with the caller's signal or the whole call's deadline.
	const wait = async (ms: number) => {
		const stop = deadline ?? (signal ? { signal, ms: 0 } : undefined);
		await (stop ? beforeDeadline(stop, sleep(ms)) : sleep(ms));
	};
	for (let attempt = 1; ; attempt++) {
		let response: IN8nHttpFullResponse | undefined;
		let failure: Failure;
		try {
			await pool?.acquire(priority);
			try {
				response = await send();
			} finally {
				pool?.release();
			}
		} catch (error) {
			// Thrown only when no HTTP response arrived (n8n wraps those in its own errors). Past the
			// whole call's deadline, or once the caller gave up, there is no next attempt.
			failure = { kind: 'network' };
			const stopped = deadline?.signal.aborted || signal?.aborted;
			const delay = stopped ? undefined : nextDelay(method, failure, attempt, waitedMs, Date.now());
			if (delay === undefined) throw networkError(ctx.getNode(), error, context, Boolean(stopped));
			waitedMs += delay;
			await wait(delay);
			continue;
		}
		if (response.statusCode !== 429) pool?.succeeded();
		if (response.statusCode < 400) {
			const invalid = check?.(response, attempt);
			if (!invalid) return response;
			// A proxy's or login page in place of the answer: a read tries again, a write never.
			const delay = nextDelay(method, { kind: 'notRecord' }, attempt, waitedMs, Date.now());
			if (delay === undefined) throw invalid;
			waitedMs += delay;
			await wait(delay);
			continue;
		}
		failure = {
			kind: 'status',
			status: response.statusCode,
			retryAfter: headerOf(response, 'retry-after') || undefined,
		};
		const now = Date.now();
		const delay = nextDelay(method, failure, attempt, waitedMs, now);
		// A 429 slows every request of a concurrent read, not only this one.
		if (response.statusCode === 429) pool?.throttled(delay ?? 0);
		if (delay === undefined)
			throw problemError(ctx.getNode(), response.statusCode, bodyText(response.body), {
				...context,
				attempts: attempt,
				// Named only when the asked wait, not the attempts, stopped the retries.
				askedWaitMs:
					attempt < retryPolicy.maxAttempts ? parseRetryAfter(failure.retryAfter, now) : undefined,
				retryAfter: failure.retryAfter,
			});
		waitedMs += delay;
		await wait(delay);
	}
}

/** Binary error bodies (downloads) are decoded so problem details still show. */
function bodyText(body: unknown): unknown {
	return Buffer.isBuffer(body) ? body.toString('utf8') : body;
}
