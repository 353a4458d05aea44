import type { IDataObject } from 'n8n-workflow';

import { type Account, digest } from '../shared/account';
import type { Query } from '../shared/transport';

/**
 * What the poll trigger keeps between polls, in the workflow's static data. n8n saves it when a
 * poll emits (__emit) and after activation (ActiveWorkflowManager.add), 2.41 and 1.123 alike; a
 * poll that emits nothing keeps it in memory only, so a restart resumes from the last save.
 */
export interface PollState extends IDataObject {
	/** What the state belongs to; any other value, an older form's included, primes. */
	fingerprint?: Fingerprint;
	/** accountIdDigest of the account last named: tells a key rotation from another account. */
	accountId?: string;
	/** New Mail: [arrival ms, numeric id] at or below which nothing is emitted; never lowered. */
	floor?: [number, number];
	/** New Mail: the MAX_REMEMBERED-th newest recorded item; the next poll raises the floor to it. */
	remembered?: [number, number];
	/** New Mail: the highest order key below which mail out of reach was reported. */
	reported?: [number, number];
	/** New Mail: [from (null: the activation), to] arrival ms of mail out of reach, to report. */
	unreachable?: [number | null, number];
	/** New Mail: mail id → arrival ms of the items recorded (primed or emitted) above the floor. */
	recorded?: Record<string, number>;
	/** Scans: id → created_at ms of the scans seen in process and not completed since. */
	pending?: Record<string, number>;
	/** Scans: created_at ms of the newest scan of the type seen; a scan created later is new. */
	newestCreated?: number;
	/** Scans: ids of the scans created at newestCreated that were seen. */
	newestIds?: string[];
	/** Scans: completions emitted, as `id@status_updated_at`, newest last. */
	emitted?: string[];
}

/** The event, the query (no empty filters, keys and list values sorted) and the account. */
export interface Fingerprint extends IDataObject {
	event: string;
	query: Record<string, string | string[]>;
	account: Account;
}

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
