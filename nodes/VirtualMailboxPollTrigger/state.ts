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
	/** The account, event and normalized query the state belongs to (fingerprintOf); another one primes. */
	fingerprint?: string;
	/** New Mail: no mail at or below this order key [arrival ms, numeric id] is emitted; it never goes down. */
	floor?: [number, number];
	/** New Mail: the MAX_REMEMBERED-th newest recorded item when the last poll ended; the next poll raises the floor to it. */
	remembered?: [number, number];
	/** New Mail: the highest order key below which mail was out of reach and reported, while above the floor. */
	reported?: [number, number];
	/** New Mail: [from arrival ms (null: the activation), to arrival ms] of mail out of reach found by a poll that emitted; the next poll reports it and clears it. */
	unreachable?: [number | null, number];
	/** New Mail: witnessOf the newest mail recorded (at priming, then the newest emitted): tells a rotated API key from another account's. */
	witness?: string;
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

/**
 * Pure: the account a credential reaches, as the poll state keys it: the credential's id, the
 * server it points at and a digest of its API key (never the key itself). Another credential,
 * environment or Base URL is another account to the state, which then primes; a new key is the
 * same account when the mailbox still lists the state's witness (the node checks, one request).
 */
export function accountOf(credentialId: string | null | undefined, credentials: VirtualMailboxCredentials): string {
	const keyDigest = createHash('sha256').update(String(credentials.apiKey ?? '').trim()).digest('hex').slice(0, 16);
	return `${credentialId ?? ''}|${baseUrlOf(credentials).toLowerCase()}|${keyDigest}`;
}

/**
 * Pure: what the state belongs to: the account (accountOf), the event and the query with empty
 * filters left out, keys and list values sorted, so that only a change of what is read, or of
 * where it is read, changes it.
 */
export function fingerprintOf(event: string, query: Query, account = ''): string {
	const normalized: Record<string, string | string[]> = {};
	for (const key of Object.keys(query).sort()) {
		const value = query[key];
		if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
		normalized[key] = Array.isArray(value) ? [...value].map(String).sort() : String(value);
	}
	return JSON.stringify([event, normalized, account]);
}

/**
 * Pure: whether two fingerprints differ only in the API key's digest (same event, query,
 * credential and server): a new key, perhaps for the same account (a rotation).
 */
export function onlyKeyChanged(before: string | undefined, after: string): boolean {
	try {
		const [eventBefore, queryBefore, accountBefore] = JSON.parse(before ?? '') as [string, unknown, string];
		const [eventAfter, queryAfter, accountAfter] = JSON.parse(after) as [string, unknown, string];
		const withoutKey = (account: string) => account.split('|').slice(0, -1).join('|');
		return (
			eventBefore === eventAfter &&
			JSON.stringify(queryBefore) === JSON.stringify(queryAfter) &&
			typeof accountBefore === 'string' &&
			accountBefore !== accountAfter &&
			withoutKey(accountBefore) === withoutKey(accountAfter)
		);
	} catch {
		return false;
	}
}

/**
 * Pure: a mail item as no other account's item is: its id with a digest of what never changes
 * about it (arrival, sender, recipient, type, weight).
 */
export function witnessOf(item: IDataObject): string {
	const fixed = [item.id, item.arrival_date, item.sender_name, item.recipient_name, item.mail_type, item.weight].map((value) => String(value ?? ''));
	return `${String(item.id)}#${createHash('sha256').update(JSON.stringify(fixed)).digest('hex').slice(0, 16)}`;
}
