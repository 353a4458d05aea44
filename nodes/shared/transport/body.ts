/** Response bodies read as streams, so that a deadline or a size cap can close them. */

/** Drop a response body stream (closes its connection). */
export function discard(body: unknown): void {
	(body as { destroy?: () => void } | undefined)?.destroy?.();
}

/**
 * A response body (stream or buffer) as one Buffer; undefined past `maxBytes` (or the first
 * `maxBytes` when `truncate`). The stream is destroyed when `signal` aborts, so a dribbling host
 * loses its connection at the deadline.
 */
export async function readCapped(
	body: unknown,
	maxBytes: number,
	signal: AbortSignal,
	truncate = false,
): Promise<Buffer | undefined> {
	if (Buffer.isBuffer(body))
		return body.length <= maxBytes ? body : truncate ? body.subarray(0, maxBytes) : undefined;
	if (typeof body === 'string') return readCapped(Buffer.from(body), maxBytes, signal, truncate);
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')
		return Buffer.alloc(0);
	const close = () => discard(body);
	if (signal.aborted) close();
	signal.addEventListener('abort', close, { once: true });
	try {
		return await collect(body as AsyncIterable<Buffer | string>, maxBytes, truncate);
	} finally {
		signal.removeEventListener('abort', close);
	}
}

async function collect(
	body: AsyncIterable<Buffer | string>,
	maxBytes: number,
	truncate: boolean,
): Promise<Buffer | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body) {
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
