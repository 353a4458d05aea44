import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/constants';
import { getApiCredentials, rememberCredentials, type VirtualMailboxCredentials } from '../shared/transport';

/**
 * How long a trigger keeps the credential it read. In n8n, reading a credential while a webhook is
 * handled costs a database query, a decryption and an expression isolate of its own: most of what
 * this trigger added to n8n's cost per delivery (bench/profile-trigger.mjs). A delivery that fails
 * verification against the kept copy reads the credential again before it is rejected, so a new
 * secret works at once; a secret taken out of the credential stops being accepted within this time.
 */
export const KEEP_CREDENTIALS_MS = 60_000;

const kept = new Map<string, { credentials: VirtualMailboxCredentials; until: number }>();

function keyOf(ctx: IWebhookFunctions | IHookFunctions): string {
	const node = ctx.getNode();
	return `${ctx.getWorkflow().id ?? ''}/${node.name}/${node.credentials?.[CREDENTIAL_TYPE]?.id ?? ''}`;
}

/** The trigger's credential: the copy read within the last minute, or a fresh read when `fresh`. */
export async function webhookCredentials(
	this: IWebhookFunctions,
	now: number,
	fresh = false,
): Promise<{ credentials: VirtualMailboxCredentials; cached: boolean }> {
	const key = keyOf(this);
	const entry = kept.get(key);
	if (!fresh && entry && entry.until > now) {
		rememberCredentials(this, entry.credentials); // later API calls of this delivery use it too
		return { credentials: entry.credentials, cached: true };
	}
	if (fresh) rememberCredentials(this, undefined);
	const credentials = await getApiCredentials.call(this);
	for (const [other, { until }] of kept) if (until <= now) kept.delete(other);
	kept.set(key, { credentials, until: now + KEEP_CREDENTIALS_MS });
	return { credentials, cached: false };
}

/** Activation and deactivation start from the stored credential. */
export function forgetWebhookCredentials(ctx: IHookFunctions): void {
	kept.delete(keyOf(ctx));
}
