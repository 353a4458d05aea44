import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { parseJsonKeepingDigits } from '../digits';
import { redact } from './errors';

/**
 * Pure helpers for a successful answer's body: JSON parsed with every integer kept digit for
 * digit, and a short description of an answer that is not the JSON record asked for.
 */

/** An answer that came back, described for an error. */
export interface Received {
	status: number;
	contentType: string;
	bytes: number;
	head: string;
	/** Whether the body parsed as JSON (an empty body did not). */
	json: boolean;
}

/** Characters of a body named in an error: enough to recognise a login or proxy page. */
const HEAD_CHARS = 80;

/**
 * Pure: a body as n8n would parse it with `json: true`, big integers kept. `json` tells a JSON
 * string from plain text.
 */
export function readBody(raw: Buffer | undefined): {
	body: IN8nHttpFullResponse['body'];
	json: boolean;
	text: string;
} {
	const text = (raw?.toString('utf8') ?? '').replace(/^\uFEFF/, '');
	if (text.trim() === '') return { body: '', json: false, text };
	try {
		return { body: parseJsonKeepingDigits(text) as IN8nHttpFullResponse['body'], json: true, text };
	} catch {
		return { body: text, json: false, text };
	}
}

/**
 * Pure: what came back, for an error. `secrets` are taken out before the cut, so a page echoing
 * the request shows neither a whole secret nor its first characters.
 */
export function describeReceived(
	status: number,
	contentType: string,
	text: string,
	json: boolean,
	secrets: readonly string[] = [],
): Received {
	const flat = redact(text.replace(/\s+/g, ' ').trim(), secrets);
	return {
		status,
		contentType: contentType || 'no content type',
		bytes: Buffer.byteLength(text),
		head: flat.length > HEAD_CHARS ? `${flat.slice(0, HEAD_CHARS)}…` : flat,
		json,
	};
}

/** Pure: "an empty body", "a JSON string", "text/html (3 KB) starting …". */
export function receivedText(received: Received, body: unknown): string {
	if (received.bytes === 0 || received.head === '')
		return `an empty body (${received.contentType})`;
	if (received.json) {
		const kind = Array.isArray(body)
			? 'a JSON list'
			: body === null
				? 'JSON null'
				: `a JSON ${typeof body}`;
		return `${kind} (${received.contentType}) starting ${JSON.stringify(received.head)}`;
	}
	const size =
		received.bytes >= 1024 ? `${Math.round(received.bytes / 1024)} KB` : `${received.bytes} bytes`;
	return `${received.contentType} (${size}) starting ${JSON.stringify(received.head)}`;
}

/** Pure: whether a successful body is the JSON object a record or page is (lists when allowed). */
export function isRecord(body: unknown, allowList = false): boolean {
	if (Array.isArray(body)) return allowList;
	return body !== null && typeof body === 'object';
}
