import type { IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { retryPolicy } from '../state/retryPolicy';
import { type ApiContext, baseUrlOf, getApiCredentials } from './credentials';
import type { ErrorContext } from './errors';
import { headerOf, sendWithRetries } from './request';

export interface DownloadedFile {
	data: Buffer;
	contentType: string;
	fileName: string;
}

/** Default largest file a download takes, in MB (the nodes' "Max File Size (MB)" option). */
export const DEFAULT_MAX_FILE_MB = 100;
/** Redirects a file link may take, each one checked like the link itself. */
const MAX_FILE_REDIRECTS = 3;

/**
 * Pure: whether a host name or IP literal is loopback, private, link-local or otherwise not a
 * public address. Names are not resolved here (n8n's own SSRF protection can cover DNS).
 */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
	const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host.replace(/^::ffff:/, ''));
	if (v4) {
		const [a, b] = [Number(v4[1]), Number(v4[2])];
		return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
	}
	if (host.includes(':')) return host === '::' || host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:');
	return false;
}

/**
 * Pure: why a file link may not be fetched, or undefined when it may. Only https, except plain
 * http to the custom server of the credential (the local simulator); no private, loopback or
 * link-local targets unless the credential is the custom environment.
 */
export function fileLinkProblem(link: URL, { custom, customOrigin }: { custom: boolean; customOrigin?: string }): string | undefined {
	if (link.protocol !== 'https:' && !(link.protocol === 'http:' && custom && link.origin === customOrigin)) {
		return `only https links are downloaded, not ${link.protocol.replace(':', '')}`;
	}
	if (!custom && isPrivateHost(link.hostname)) return 'the link points to a private, loopback or link-local address';
	return undefined;
}

/**
 * Fetch a pre-signed result link (scan PDF, envelope image). No Authorization header: the link
 * carries its own signature, and the API key must never reach a file host. The link and every
 * redirect it takes are checked by fileLinkProblem; the body is read as a stream and stops at
 * `maxBytes`.
 */
export async function downloadFile(
	this: ApiContext,
	url: string,
	fallbackName: string,
	{ itemIndex, maxBytes = DEFAULT_MAX_FILE_MB * 1024 * 1024 }: { itemIndex?: number; maxBytes?: number } = {},
): Promise<DownloadedFile> {
	const credentials = await getApiCredentials.call(this);
	const custom = credentials.environment === 'custom';
	let customOrigin: string | undefined;
	try {
		customOrigin = custom ? new URL(baseUrlOf(credentials)).origin : undefined;
	} catch {
		customOrigin = undefined;
	}
	const refuse = (message: string) => new NodeOperationError(this.getNode(), `The file was not downloaded: ${message}`, { itemIndex });
	let link: URL;
	try {
		link = new URL(url);
	} catch {
		throw refuse('the link is not a valid URL');
	}
	for (let hops = 0; ; hops++) {
		const problem = fileLinkProblem(link, { custom, customOrigin });
		if (problem) throw refuse(problem);
		const context: ErrorContext = { method: 'GET', path: link.pathname, itemIndex, secrets: [] };
		const response = await sendWithRetries(this, 'GET', context, {}, async () => {
			const answer = (await this.helpers.httpRequest({
				method: 'GET',
				url: link.href,
				encoding: 'stream',
				json: false,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: retryPolicy.downloadTimeoutMs,
			})) as IN8nHttpFullResponse;
			// An error's body is read (a little of it) so that its details can show; a redirect's is dropped.
			if (answer.statusCode >= 300) answer.body = answer.statusCode >= 400 ? await readCapped(answer.body, 64 * 1024, true) : (discard(answer.body), '');
			return answer;
		});
		if (response.statusCode >= 300 && response.statusCode < 400) {
			if (hops >= MAX_FILE_REDIRECTS) throw refuse(`the link redirected more than ${MAX_FILE_REDIRECTS} times`);
			try {
				link = new URL(headerOf(response, 'location'), link);
			} catch {
				throw refuse(`the link redirected (${response.statusCode}) without a usable Location`);
			}
			continue;
		}
		const data = await readCapped(response.body, maxBytes);
		if (data === undefined) throw refuse(`the file is larger than ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB (Max File Size)`);
		const contentType = headerOf(response, 'content-type').split(';')[0].trim() || 'application/octet-stream';
		return { data, contentType, fileName: fileNameOf(headerOf(response, 'content-disposition'), link.pathname, fallbackName) };
	}
}

function discard(body: unknown): void {
	(body as { destroy?: () => void } | undefined)?.destroy?.();
}

/** A response body (stream or buffer) as one Buffer; undefined past `maxBytes` (or the first `maxBytes` when `truncate`). */
async function readCapped(body: unknown, maxBytes: number, truncate = false): Promise<Buffer | undefined> {
	if (Buffer.isBuffer(body)) return body.length <= maxBytes ? body : truncate ? body.subarray(0, maxBytes) : undefined;
	if (typeof body === 'string') return readCapped(Buffer.from(body), maxBytes, truncate);
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return Buffer.alloc(0);
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body as AsyncIterable<Buffer | string>) {
		const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
		size += piece.length;
		if (size > maxBytes) {
			discard(body);
			if (!truncate) return undefined;
			chunks.push(piece.subarray(0, piece.length - (size - maxBytes)));
			break;
		}
		chunks.push(piece);
	}
	return Buffer.concat(chunks);
}

/** Pure: percent-decoding that keeps the text as it is when an escape is malformed. */
function decodeLoosely(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** Pure: a file name safe to store: no folders, no control characters, not empty, not too long. */
export function safeFileName(name: string, fallback: string): string {
	const base = name.split(/[\\/]/).pop() ?? '';
	// eslint-disable-next-line no-control-regex
	const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().replace(/^\.+$/, '').slice(0, 200);
	return clean || fallback;
}

/** Pure: file name from Content-Disposition, else the link's last path segment, else the fallback. */
export function fileNameOf(disposition: string, path: string, fallback: string): string {
	const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
	if (star) return safeFileName(decodeLoosely(star[1].trim().replace(/^"|"$/g, '')), fallback);
	const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
	if (plain) return safeFileName(plain[1].trim(), fallback);
	const last = path.split('/').filter(Boolean).pop();
	return last ? safeFileName(decodeLoosely(last), fallback) : fallback;
}
