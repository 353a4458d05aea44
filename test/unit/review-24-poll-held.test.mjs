// Review #24 (copied harness from deadlines.test.mjs). Issue #24, part 1: a download deadline is a deadline. n8n's `timeout` restarts with every byte,
// so a host that sends one byte every 200 ms kept a download with a 1 s limit alive for 6 s. These
// tests put such a host in front of the simulator: API requests pass through to the simulator, file
// links (/files/…) dribble. Each failed on the code before (the downloads succeeded after 6 s).
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runNode, runPoll, runWebhook } from '../harness/n8n-core-harness.mjs';
import { payloads, request } from '../support/webhooks.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const saved = { ...retryPolicy };

/** Bytes a dribbling file sends in all: 30 × 200 ms = 6 s. */
const DRIBBLE_BYTES = 30;
const DRIBBLE_EVERY_MS = 200;

let sim;
let front;
let credentials;
/** What each file transfer did: bytes sent before it ended, and whether the client closed it first. */
const transfers = [];

/**
 * The simulator behind a host that dribbles file bodies; `hops` redirects first (each answered
 * after `hopDelayMs`), so a deadline must cover the redirects too.
 */
async function startDribblingFront(upstream) {
	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url, 'http://front');
		if (url.pathname.startsWith('/files/')) {
			const hops = Number(url.searchParams.get('hops') ?? 0);
			const hopDelayMs = Number(url.searchParams.get('hopDelayMs') ?? 0);
			if (hops > 0) {
				url.searchParams.set('hops', String(hops - 1));
				await new Promise((r) => setTimeout(r, hopDelayMs));
				res.writeHead(302, { location: `${url.pathname}?${url.searchParams}` }).end();
				return;
			}
			const transfer = { sent: 0, closedByClient: false, done: false };
			transfers.push(transfer);
			res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(DRIBBLE_BYTES) });
			res.on('close', () => {
				if (!transfer.done) transfer.closedByClient = true;
				transfer.done = true;
			});
			const timer = setInterval(() => {
				if (transfer.done) return clearInterval(timer);
				res.write('x');
				if (++transfer.sent === DRIBBLE_BYTES) {
					clearInterval(timer);
					transfer.done = true;
					res.end();
				}
			}, DRIBBLE_EVERY_MS);
			return;
		}
		// API requests go to the simulator; its links are rewritten to point here.
		const chunks = [];
		for await (const chunk of req) chunks.push(chunk);
		const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
		const text = (await answer.text()).replaceAll(upstream, front.url);
		res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.closeAllConnections() || server.close(r)) };
}

beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 50, seed: 24 });
	front = await startDribblingFront(sim.url);
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: front.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	Object.assign(retryPolicy, saved);
	await front?.close();
	await sim?.close();
	nock.activate();
});
beforeEach(() => {
	Object.assign(retryPolicy, saved, { downloadTimeoutMs: 1_000, baseDelayMs: 5, maxDelayMs: 10 });
	transfers.length = 0;
});

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
/** Until the last file transfer has ended (closed by us, or all bytes sent). */
async function transferEnded() {
	for (let i = 0; i < 100 && !(transfers.at(-1)?.done ?? false); i++) await new Promise((r) => setTimeout(r, 100));
	return transfers.at(-1);
}
/** The transfer was cut: the host had not sent everything when the connection closed. */
const expectCut = async () => {
	const transfer = await transferEnded();
	expect(transfer).toBeDefined();
	expect(transfer.closedByClient).toBe(true);
	expect(transfer.sent).toBeLessThan(DRIBBLE_BYTES);
};

describe('review #24: a poll is not held up as long as the host likes', () => {
	test('poll trigger: New Mail with Download File, 4 new items on a dribbling host, ends near one 1 s deadline (not one per item)', async () => {
		const parameters = { event: 'new-mail', filters: {}, options: { downloadFile: true } };
		const first = await runPoll({ parameters, credentials });
		for (let k = 0; k < 4; k++) await control('/mail', { sender_name: `Dribble ${k}` });
		const started = Date.now();
		const { result } = await runPoll({ parameters, credentials, staticData: JSON.parse(JSON.stringify(first.staticData)) });
		const took = Date.now() - started;
		expect(result[0]).toHaveLength(4);
		expect(result[0].every((item) => /within 1 s/.test(item.json.download_error))).toBe(true);
		// One poll's downloads share a bound; 4 items × 1 s each means N × 120 s in production.
		expect(took).toBeLessThan(2_500);
	});
});
