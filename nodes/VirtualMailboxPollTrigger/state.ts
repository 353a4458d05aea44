import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { baseUrlOf, type Query, type VirtualMailboxCredentials } from '../shared/transport';

/**
 * What the poll trigger keeps between polls, in the workflow's static data. n8n writes it to its
 * database when a poll emits (the poll context's __emit calls saveStaticData before the execution
 * starts) and after the activation, which runs one poll itself (ActiveWorkflowManager.add saves
 * once the triggers are added, and adding a poll trigger runs executeTrigger(true)): n8n 2.41 and
 * 1.123 alike. A poll that emits nothing or fails is not saved; its state lives on in the active
 * workflow's memory, so a restart starts from the state of the last save.
 */
export interface PollState extends IDataObject {
	/** What the state belongs to; any other value, an older form's included, primes. */
	fingerprint?: Fingerprint;
	/** accountIdDigest of the account `GET /v1/account` named when the credential or key last changed: tells a new key of the same account (a rotation) from another account's. */
	accountId?: string;
	/** New Mail: no mail at or below this order key [arrival ms, numeric id] is emitted; it never goes down. */
	floor?: [number, number];
	/** New Mail: the MAX_REMEMBERED-th newest recorded item when the last poll ended; the next poll raises the floor to it. */
	remembered?: [number, number];
	/** New Mail: the highest order key below which mail was out of reach and reported, while above the floor. */
	reported?: [number, number];
	/** New Mail: [from arrival ms (null: the activation), to arrival ms] of mail out of reach found by a poll that emitted; the next poll reports it and clears it. */
	unreachable?: [number | null, number];
	/** New Mail: mail id → arrival ms of the items recorded (at priming, then every item emitted) above the floor. */
	recorded?: Record<string, number>;
	/** Scans: id → created_at ms of the scans of the event's type seen in process or restoring and not completed since. */
	pending?: Record<string, number>;
	/** Scans: created_at ms of the newest scan of the type seen; a scan created later is new. */
	newestCreated?: number;
	/** Scans: ids of the scans created at newestCreated that were seen (a later one created in the same instant is new). */
	newestIds?: string[];
	/** Scans: completions emitted, as `id@status_updated_at`, newest last. */
	emitted?: string[];
}

/** The account a credential reaches, as the poll state keys it. */
export type Account = { credentialId: string; server: string; keyDigest: string };

/** The event and query read (empty filters left out, keys and list values sorted) and the account. */
export interface Fingerprint extends IDataObject {
	event: string;
	query: Record<string, string | string[]>;
	account: Account;
}

/** Pure: the credential's id, its server and a digest of its API key (never the key itself). */
export function accountOf(
	credentialId: string | null | undefined,
	credentials: VirtualMailboxCredentials,
): Account {
	return {
		credentialId: credentialId ?? '',
		server: baseUrlOf(credentials).toLowerCase(),
		keyDigest: digest(String(credentials.apiKey ?? '').trim()),
	};
}

/** Pure: a digest of the account id `GET /v1/account` returns, as the state keeps it. */
export function accountIdDigest(id: unknown): string | undefined {
	return id === undefined || id === null || id === '' ? undefined : digest(String(id));
}

/**
 * Pure: how the stored fingerprint differs. `account` is 'credential' for another credential or
 * API key on the same server: perhaps the same account, which `GET /v1/account` tells.
 */
export function changeOf(
	stored: unknown,
	now: Fingerprint,
): { sameRead: boolean; account: 'same' | 'credential' | 'other' } {
	const before: Partial<Fingerprint> = typeof stored === 'object' && stored !== null ? stored : {};
	const sameRead =
		before.event === now.event && JSON.stringify(before.query) === JSON.stringify(now.query);
	const account = before.account;
	if (account?.server !== now.account.server) return { sameRead, account: 'other' };
	const same =
		account.credentialId === now.account.credentialId &&
		account.keyDigest === now.account.keyDigest;
	return { sameRead, account: same ? 'same' : 'credential' };
}

/** Pure: only a change of what is read, or of where it is read, changes the fingerprint. */
export function fingerprintOf(
	event: string,
	query: Query,
	account: Account = { credentialId: '', server: '', keyDigest: '' },
): Fingerprint {
	const normalized: Record<string, string | string[]> = {};
	for (const key of Object.keys(query).sort()) {
		const value = query[key];
		if (
			value === undefined ||
			value === null ||
			value === '' ||
			(Array.isArray(value) && value.length === 0)
		)
			continue;
		normalized[key] = Array.isArray(value) ? [...value].map(String).sort() : String(value);
	}
	return { event, query: normalized, account };
}

function digest(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
