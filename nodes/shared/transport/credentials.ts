import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, type Environment, SERVERS } from '../constants';
import { keptCredentials } from '../state/keptCredentials';
import { canonicalHost } from './hosts';
import { runCredentials } from '../state/runCredentials';

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| IPollFunctions
	| ITriggerFunctions;

export interface VirtualMailboxCredentials {
	environment?: Environment;
	baseUrl?: string;
	apiKey?: string;
	webhookSecret?: string;
	webhookRotation?: boolean;
	previousWebhookSecret?: string;
}

/** Pure: a custom Base URL loses a trailing /v1: every path has it, and /v1/v1/… is a 404. */
export function baseUrlOf(credentials: VirtualMailboxCredentials): string {
	if (credentials.environment === 'custom')
		return String(credentials.baseUrl ?? '')
			.trim()
			.replace(/\/+$/, '')
			.replace(/\/v1$/i, '');
	return credentials.environment === 'sandbox' ? SERVERS.sandbox : SERVERS.production;
}

/** The credential of this node run: read once, then shared by every request of the run. */
export async function getApiCredentials(this: ApiContext): Promise<VirtualMailboxCredentials> {
	let credentials = runCredentials.get(this);
	if (!credentials) {
		credentials = this.getCredentials(CREDENTIAL_TYPE) as Promise<VirtualMailboxCredentials>;
		runCredentials.set(this, credentials);
		credentials.then((read) => warnPlainHttp(this, read)).catch(() => runCredentials.delete(this));
	}
	return await credentials;
}

/** Pure: the host name of a server URL as DNS sees it, or undefined when it does not parse. */
function hostOf(url: string): string | undefined {
	try {
		return canonicalHost(new URL(url).hostname);
	} catch {
		return undefined;
	}
}

/**
 * A seed or a forced completion must never touch a real mailbox: Production (the Environment or a
 * Custom Base URL on the production host) is refused before any request.
 */
export async function requireSandbox(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<void> {
	const credentials = await getApiCredentials.call(this);
	const productionHost =
		credentials.environment !== 'production' &&
		hostOf(baseUrlOf(credentials)) === hostOf(SERVERS.production);
	if (credentials.environment === 'production' || productionHost) {
		throw new NodeOperationError(this.getNode(), `${operation} only works against the sandbox`, {
			itemIndex,
			description: productionHost
				? `The credential's Base URL is the production server (${hostOf(SERVERS.production)}). ` +
					'Use the sandbox server, a credential whose Environment is Sandbox, or a local simulator.'
				: 'The credential points at Production. Use a credential whose ' +
					'Environment is Sandbox (or Custom for a local simulator).',
		});
	}
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** Once per credential read: the key would travel unencrypted to a plain-http server. */
function warnPlainHttp(ctx: ApiContext, credentials: VirtualMailboxCredentials): void {
	const baseUrl = baseUrlOf(credentials);
	if (credentials.environment !== 'custom' || !/^http:\/\//i.test(baseUrl)) return;
	try {
		const { hostname, origin } = new URL(baseUrl);
		if (!LOOPBACK.test(hostname))
			ctx.logger.warn(
				`Virtual Mailbox: the credential's Base URL ${origin} is ` +
					'plain http, so the API key is sent unencrypted. Use https.',
			);
	} catch {
		/* an invalid Base URL fails the request itself, with its own message */
	}
}

function keptKey(ctx: IWebhookFunctions | IHookFunctions): string {
	const node = ctx.getNode();
	return `${ctx.getWorkflow().id ?? ''}/${node.name}/${node.credentials?.[CREDENTIAL_TYPE]?.id ?? ''}`;
}

/** The kept copy unless `fresh`; either becomes the run credential, so its API calls use it too. */
export async function webhookCredentials(
	this: IWebhookFunctions,
	now: number,
	fresh = false,
): Promise<{ credentials: VirtualMailboxCredentials; cached: boolean }> {
	const key = keptKey(this);
	const kept = fresh ? undefined : keptCredentials.get(key, now);
	if (kept) {
		runCredentials.set(this, Promise.resolve(kept));
		return { credentials: kept, cached: true };
	}
	if (fresh) runCredentials.delete(this);
	const credentials = await getApiCredentials.call(this);
	keptCredentials.set(key, credentials, now);
	return { credentials, cached: false };
}

/** Activation and deactivation start from the stored credential. */
export function forgetWebhookCredentials(ctx: IHookFunctions): void {
	keptCredentials.delete(keptKey(ctx));
}
