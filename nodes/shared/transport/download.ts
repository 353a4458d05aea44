import type { IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { retryPolicy } from '../state/retryPolicy';
import { type ApiContext, baseUrlOf, getApiCredentials } from './credentials';
import { beforeDeadline, type Deadline, deadlineIn } from './deadline';
import type { ErrorContext } from './errors';
import { canonicalHost, isPrivateHost } from './hosts';
import { discard, readCapped } from './body';
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
 * Pure: why a file link may not be fetched, or undefined. https to a public host, except the
 * custom server's own host (the local simulator), which may be plain http and private.
 */
export function fileLinkProblem(
	link: URL,
	{ customHost }: { customHost?: string },
): string | undefined {
	const own = customHost !== undefined && canonicalHost(link.hostname) === customHost;
	if (link.protocol !== 'https:' && !(own && link.protocol === 'http:')) {
		return `only https links are downloaded, not ${link.protocol.replace(':', '')}`;
	}
	if (!own && isPrivateHost(link.hostname))
		return (
			'the link points to a private, loopback or ' +
			'link-local address (only public hosts are fetched)'
		);
	return undefined;
}

/**
 * Fetches a pre-signed link without the API key, which must never reach a file host. Every
 * redirect is checked too; the body stops at `maxBytes` and the whole download at its deadline.
 */
export async function downloadFile(
	this: ApiContext,
	url: string,
	fallbackName: string,
	{
		itemIndex,
		maxBytes = DEFAULT_MAX_FILE_MB * 1024 * 1024,
		signal,
	}: { itemIndex?: number; maxBytes?: number; signal?: AbortSignal } = {},
): Promise<DownloadedFile> {
	const refuse = (message: string) =>
		new NodeOperationError(this.getNode(), `The file was not downloaded: ${message}`, {
			itemIndex,
		});
	const deadline = deadlineIn(retryPolicy.downloadTimeoutMs, signal);
	return await beforeDeadline(
		deadline,
		fetchFile.call(this, url, fallbackName, { itemIndex, maxBytes, deadline, refuse }),
		() => refuse(`it did not finish within ${deadline.ms / 1000} s`),
	);
}

async function fetchFile(
	this: ApiContext,
	url: string,
	fallbackName: string,
	{
		itemIndex,
		maxBytes,
		deadline,
		refuse,
	}: {
		itemIndex?: number;
		maxBytes: number;
		deadline: Deadline;
		refuse: (message: string) => NodeOperationError;
	},
): Promise<DownloadedFile> {
	const credentials = await getApiCredentials.call(this);
	let customHost: string | undefined;
	try {
		customHost =
			credentials.environment === 'custom'
				? canonicalHost(new URL(baseUrlOf(credentials)).hostname)
				: undefined;
	} catch {
		customHost = undefined;
	}
	let link: URL;
	try {
		link = new URL(url);
	} catch {
		throw refuse('the link is not a valid URL');
	}
	for (let hops = 0; ; hops++) {
		const problem = fileLinkProblem(link, { customHost });
		if (problem) throw refuse(problem);
		const context: ErrorContext = { method: 'GET', path: link.pathname, itemIndex, secrets: [] };
		const response = await sendWithRetries(this, 'GET', context, { deadline }, async () => {
			const answer = (await this.helpers.httpRequest({
				method: 'GET',
				url: link.href,
				encoding: 'stream',
				json: false,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: retryPolicy.downloadTimeoutMs,
				abortSignal: deadline.signal,
			})) as IN8nHttpFullResponse;
			// A little of an error's body is read so that its details can show.
			if (answer.statusCode >= 300)
				answer.body =
					answer.statusCode >= 400
						? await readCapped(answer.body, 64 * 1024, deadline.signal, true)
						: (discard(answer.body), '');
			return answer;
		});
		if (response.statusCode >= 300 && response.statusCode < 400) {
			if (hops >= MAX_FILE_REDIRECTS)
				throw refuse(`the link redirected more than ${MAX_FILE_REDIRECTS} times`);
			try {
				link = new URL(headerOf(response, 'location'), link);
			} catch {
				throw refuse(`the link redirected (${response.statusCode}) without a usable Location`);
			}
			continue;
		}
		const data = await readCapped(response.body, maxBytes, deadline.signal);
		if (data === undefined)
			throw refuse(
				`the file is larger than ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB (Max File Size)`,
			);
		const contentType =
			headerOf(response, 'content-type').split(';')[0].trim() || 'application/octet-stream';
		return {
			data,
			contentType,
			fileName: fileNameOf(headerOf(response, 'content-disposition'), link.pathname, fallbackName),
		};
	}
}

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
	const clean = base
		// eslint-disable-next-line no-control-regex
		.replace(/[\u0000-\u001f\u007f]/g, '')
		.trim()
		.replace(/^\.+$/, '')
		.slice(0, 200);
	return clean || fallback;
}

/** Pure: Content-Disposition's file name, else the link's last path segment, else `fallback`. */
export function fileNameOf(disposition: string, path: string, fallback: string): string {
	const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
	if (star) return safeFileName(decodeLoosely(star[1].trim().replace(/^"|"$/g, '')), fallback);
	const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
	if (plain) return safeFileName(plain[1].trim(), fallback);
	const last = path.split('/').filter(Boolean).pop();
	return last ? safeFileName(decodeLoosely(last), fallback) : fallback;
}
