import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, type Environment, SERVERS } from '../constants';
import { keyEnvironmentHint, networkError, problemError } from './errors';
import { buildUrl, type Query } from './query';
import { nextDelay, type Failure } from './retry';

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| IPollFunctions;

export interface VirtualMailboxCredentials {
	environment?: Environment;
	baseUrl?: string;
	apiKey?: string;
	webhookSecret?: string;
	previousWebhookSecret?: string;
}

export interface RequestOptions {
	query?: Query;
	body?: IDataObject;
	itemIndex?: number;
	/** Strings that must never appear in an error (for example a bank account number being sent). */
	secrets?: string[];
}

export function baseUrlOf(credentials: VirtualMailboxCredentials): string {
	if (credentials.environment === 'custom') return String(credentials.baseUrl ?? '').replace(/\/+$/, '');
	return credentials.environment === 'sandbox' ? SERVERS.sandbox : SERVERS.production;
}

export async function getApiCredentials(this: ApiContext): Promise<VirtualMailboxCredentials> {
	return (await this.getCredentials(CREDENTIAL_TYPE)) as VirtualMailboxCredentials;
}

/**
 * The one place that talks HTTP to the API: base URL from the credential, bearer auth through
 * n8n, query encoding, retries (429 always; 5xx and network errors for GET only) and
 * problem details → NodeApiError. Returns the parsed body (undefined for an empty one).
 */
export async function apiRequest(
	this: ApiContext,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const credentials = await getApiCredentials.call(this);
	const baseUrl = baseUrlOf(credentials);
	if (!/^https?:\/\//.test(baseUrl)) {
		throw new NodeOperationError(this.getNode(), `The credential's Base URL "${baseUrl}" is not an http(s) address`, {
			itemIndex: options.itemIndex,
		});
	}
	const url = buildUrl(baseUrl, path, options.query);
	const context = {
		method,
		path,
		itemIndex: options.itemIndex,
		hadCursor: Boolean(options.query?.cursor),
		secrets: [credentials.apiKey ?? '', ...(options.secrets ?? [])],
		authHint: keyEnvironmentHint(credentials.environment, credentials.apiKey),
	};

	let waitedMs = 0;
	for (let attempt = 1; ; attempt++) {
		let failure: Failure;
		let response: IN8nHttpFullResponse | undefined;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				method,
				url,
				body: options.body,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			failure = { kind: 'network' };
			const delay = nextDelay(method, failure, attempt, waitedMs, Date.now());
			if (delay === undefined) throw networkError(this.getNode(), error, context);
			waitedMs += delay;
			await sleep(delay);
			continue;
		}
		if (response.statusCode < 400) return emptyToUndefined(response.body) as IDataObject;
		const retryAfter = response.headers?.['retry-after'];
		failure = { kind: 'status', status: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : (retryAfter as string | undefined) };
		const delay = nextDelay(method, failure, attempt, waitedMs, Date.now());
		if (delay === undefined) throw problemError(this.getNode(), response.statusCode, response.body, context);
		waitedMs += delay;
		await sleep(delay);
	}
}

function emptyToUndefined(body: unknown): unknown {
	if (body === '' || body === null) return undefined;
	return body;
}
