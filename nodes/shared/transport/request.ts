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
import { type ErrorContext, keyEnvironmentHint, networkError, problemError } from './errors';
import { readCapped } from './body';
import { beforeDeadline, type Deadline, deadlineIn } from './deadline';
import { buildUrl, type Query } from './query';
import type { RequestPool } from './pool';
import { nextDelay, type Failure } from './retry';

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
}

/**
 * The one place that talks HTTP to the API: base URL from the credential, bearer auth through
 * n8n, query encoding, retries (429 always; 5xx and network errors for GET only) and
 * problem details → NodeApiError. Returns the parsed body; an empty body gives `{}`.
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
	const response = await sendWithRetries(this, method, context, options, async () => {
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
						// A redirect is never followed: the key and request bodies go to the configured server only.
						disableFollowRedirect: true,
						timeout: retryPolicy.timeoutMs,
						abortSignal: deadline.signal,
					},
					{ credentialsDecrypted },
				)) as IN8nHttpFullResponse;
				const raw = await readCapped(answer.body, retryPolicy.maxAnswerBytes, deadline.signal);
				// Too large: not retried (the same answer would come again); an error status keeps its status.
				answer.body =
					raw === undefined ? (answer.statusCode < 300 ? TOO_LARGE : '') : parsedBody(raw);
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
			`The Virtual Mailbox API's answer to ${method} ${path} is larger than ${sizeText(retryPolicy.maxAnswerBytes)} and was not read`,
			{
				itemIndex: options.itemIndex,
				description:
					method === 'GET'
						? "No API answer is that large: check that the credential's Base URL is the Virtual Mailbox API, not another server or a proxy page."
						: "No API answer is that large: check that the credential's Base URL is the Virtual Mailbox API. The request was sent: check before running again.",
			},
		);
	}
	return (body === '' || body === null || body === undefined ? {} : body) as IDataObject;
}

/**
 * Pure: a JSON body parsed, as n8n would with `json: true`; text that is not JSON stays text, an
 * empty body is ''. A leading UTF-8 byte-order mark is dropped first, as axios does.
 */
export function parsedBody(raw: Buffer | undefined): IN8nHttpFullResponse['body'] {
	const text = (raw?.toString('utf8') ?? '').replace(/^\uFEFF/, '');
	if (text.trim() === '') return '';
	try {
		return JSON.parse(text) as IN8nHttpFullResponse['body'];
	} catch {
		return text;
	}
}

/** Pure: a byte count for people: MB from 1 MB up, else KB. */
function sizeText(bytes: number): string {
	return bytes >= 1024 * 1024
		? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`
		: `${Math.round(bytes / 1024)} KB`;
}

/** A response header's (first) value, or '' when it is absent. */
export function headerOf(response: IN8nHttpFullResponse, name: string): string {
	const value = response.headers?.[name];
	return String(Array.isArray(value) ? value[0] : (value ?? ''));
}

/** A 3xx from the API: named with the target's origin only (its path or query may carry tokens). */
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
		message: `The API answered ${context.method} ${context.path} with a redirect (${response.statusCode}) to ${target}; not followed`,
		description:
			'Requests carrying the API key and their bodies go only to the server of the credential. Check the Environment or Base URL.',
		httpCode: String(response.statusCode),
		itemIndex: context.itemIndex,
	});
}

/**
 * Send until success or a failure the policy does not retry (see retry.ts), then map the failure
 * to a NodeApiError. Every HTTP call of the package goes through here.
 */
export async function sendWithRetries(
	ctx: ApiContext,
	method: IHttpRequestMethods,
	context: ErrorContext,
	{
		pool,
		priority,
		signal,
		deadline,
	}: Pick<RequestOptions, 'pool' | 'priority' | 'signal'> & { deadline?: Deadline },
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
		if (response.statusCode < 400) return response;
		failure = {
			kind: 'status',
			status: response.statusCode,
			retryAfter: headerOf(response, 'retry-after') || undefined,
		};
		const delay = nextDelay(method, failure, attempt, waitedMs, Date.now());
		// A 429 slows every request of a concurrent read, not only this one.
		if (response.statusCode === 429) pool?.throttled(delay ?? 0);
		if (delay === undefined)
			throw problemError(ctx.getNode(), response.statusCode, bodyText(response.body), context);
		waitedMs += delay;
		await wait(delay);
	}
}

/** Binary error bodies (downloads) are decoded so problem details still show. */
function bodyText(body: unknown): unknown {
	return Buffer.isBuffer(body) ? body.toString('utf8') : body;
}
