// A download deadline is a deadline. n8n's `timeout` restarts with every byte, so a host that sends
// one byte every 200 ms could keep a download with a 1 s limit alive for 6 s. These tests put such a
// host in front of the simulator: API requests pass through to the simulator, file links (/files/…)
// dribble; a download that succeeded after 6 s would fail them.
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
	DEFAULT_CREDENTIALS,
	dist,
	runNode,
	runPoll,
	runWebhook,
} from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const saved = { ...retryPolicy };

/** Bytes a dribbling file sends in all: 30 × 200 ms = 6 s. */
const DRIBBLE_BYTES = 30;
const DRIBBLE_EVERY_MS = 200;

const { sim, control } = await simulatorForFile({ count: 50, seed: 24 }, { reset: false });
let front;
let credentials;
/** What each file transfer did: bytes sent before it ended, and whether the client closed it first. */
const transfers = [];
/** File paths already answered 503 once (?fail503=1). */
const failedOnce = new Set();

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
			// ?fail503=1: the first request for this path is answered 503 at once, the retry dribbles.
			if (url.searchParams.get('fail503') === '1' && !failedOnce.has(url.pathname)) {
				failedOnce.add(url.pathname);
				res
					.writeHead(503, { 'content-type': 'application/json' })
					.end('{"title":"Service Unavailable","status":503}');
				return;
			}
			const transfer = { sent: 0, closedByClient: false, done: false };
			transfers.push(transfer);
			res.writeHead(200, {
				'content-type': 'application/pdf',
				'content-length': String(DRIBBLE_BYTES),
			});
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
		const answer = await fetch(`${upstream}${req.url}`, {
			method: req.method,
			headers: {
				authorization: req.headers.authorization ?? '',
				'content-type': 'application/json',
			},
			body: chunks.length ? Buffer.concat(chunks) : undefined,
		});
		const text = (await answer.text()).replaceAll(upstream, front.url);
		res
			.writeHead(answer.status, {
				'content-type': answer.headers.get('content-type') ?? 'application/json',
			})
			.end(text);
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		close: () => new Promise((r) => server.closeAllConnections() || server.close(r)),
	};
}

beforeAll(async () => {
	front = await startDribblingFront(sim.url);
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: front.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	Object.assign(retryPolicy, saved);
	await front?.close();
});
beforeEach(() => {
	Object.assign(retryPolicy, saved, { downloadTimeoutMs: 1_000, baseDelayMs: 5, maxDelayMs: 10 });
	transfers.length = 0;
});

/** Until the last file transfer has ended (closed by us, or all bytes sent). */
async function transferEnded() {
	for (let i = 0; i < 100 && !(transfers.at(-1)?.done ?? false); i++)
		await new Promise((r) => setTimeout(r, 100));
	return transfers.at(-1);
}
/** The transfer was cut: the host had not sent everything when the connection closed. */
const expectCut = async () => {
	const transfer = await transferEnded();
	expect(transfer).toBeDefined();
	expect(transfer.closedByClient).toBe(true);
	expect(transfer.sent).toBeLessThan(DRIBBLE_BYTES);
};

describe('a download ends at its deadline, however the host sends', () => {
	test('Scan → Download from a host sending one byte every 200 ms fails at a 1 s deadline and closes the connection', async () => {
		const mail = (await control('/mail', { sender_name: 'Slow host' })).mail;
		const scan = await control(`/mails/${mail.id}/scan`, { type: 'scan' });
		await control(`/scans/${scan.id}/status`, { status: 'COMPLETED' });
		const { error, items } = await runNode({
			parameters: {
				resource: 'scan',
				operation: 'download',
				scanId: scan.id,
				binaryPropertyName: 'data',
			},
			credentials,
		});
		expect(items).toHaveLength(0);
		expect(error?.message).toBe('The file was not downloaded: it did not finish within 1 s');
		await expectCut();
	});

	test('redirects count: three hops of 400 ms each, then the body, exceed a 1 s deadline', async () => {
		const link = `${front.url}/files/envelopes/slow.pdf?hops=3&hopDelayMs=400`;
		const run = await runWebhook({
			parameters: { events: ['new-mail'], options: { downloadFile: true } },
			request: request({ ...payloads['new-mail'], id: 424242, image_url: link }),
			credentials,
			workflowId: `wf-deadline-${Math.random()}`,
		});
		const [item] = run.result.workflowData[0];
		expect(item.json.download_error).toBe(
			'The file was not downloaded: it did not finish within 1 s',
		);
		expect(item.binary).toBeUndefined();
	});

	test('webhook trigger: the download it answered without is stopped, not left running in the background', async () => {
		Object.assign(retryPolicy, { downloadTimeoutMs: 60_000, answerWithinMs: 500 });
		const link = `${front.url}/files/envelopes/background.pdf`;
		const run = await runWebhook({
			parameters: { events: ['new-mail'], options: { downloadFile: true } },
			request: request({ ...payloads['new-mail'], id: 434343, image_url: link }),
			credentials,
			workflowId: `wf-deadline-${Math.random()}`,
		});
		const [item] = run.result.workflowData[0];
		expect(item.json.enrichment_error).toMatch(/did not finish within 0.5 s/);
		await expectCut();
	});

	test('poll trigger: New Mail with Download File is not held up by a dribbling host', async () => {
		const parameters = { event: 'new-mail', filters: {}, options: { downloadFile: true } };
		const first = await runPoll({ parameters, credentials });
		await control('/mail', { sender_name: 'Dribble' });
		// The simulator's envelope links are served by the dribbling front (rewritten), so the download dribbles.
		const { result } = await runPoll({
			parameters,
			credentials,
			staticData: JSON.parse(JSON.stringify(first.staticData)),
		});
		const [item] = result[0];
		expect(item.json.sender_name).toBe('Dribble');
		expect(item.json.download_error).toBe(
			"Not downloaded: this poll's downloads did not finish within 1 s",
		);
		await expectCut();
	});

	test('retries count: a first attempt answered 503 at once, then a retry that dribbles, ends at the one 1 s deadline', async () => {
		const link = `${front.url}/files/envelopes/retried-${Math.random()}.pdf?fail503=1`;
		const run = await runWebhook({
			parameters: { events: ['new-mail'], options: { downloadFile: true } },
			request: request({ ...payloads['new-mail'], id: 454545, image_url: link }),
			credentials,
			workflowId: `wf-deadline-${Math.random()}`,
		});
		const [item] = run.result.workflowData[0];
		// the 503 was served and retried: the retry is the one dribbling transfer, cut at the deadline
		expect(failedOnce.has(new URL(link).pathname)).toBe(true);
		expect(transfers).toHaveLength(1);
		expect(item.json.download_error).toBe(
			'The file was not downloaded: it did not finish within 1 s',
		);
		await expectCut();
	});

	test("poll trigger: one deadline for all of a poll's downloads, not one per item", async () => {
		// Not one 1 s deadline per item: with 4 items that would let the poll be
		// held 4 s (4 × 120 s in production), every item's transfer started and cut in turn.
		const parameters = { event: 'new-mail', filters: {}, options: { downloadFile: true } };
		const first = await runPoll({ parameters, credentials });
		for (let k = 0; k < 4; k++) await control('/mail', { sender_name: `Dribble ${k}` });
		const { result } = await runPoll({
			parameters,
			credentials,
			staticData: JSON.parse(JSON.stringify(first.staticData)),
		});
		expect(result[0]).toHaveLength(4);
		expect(
			result[0].every(
				(item) => /within 1 s/.test(item.json.download_error) && item.binary === undefined,
			),
		).toBe(true);
		// The items after the deadline are not downloaded at all (the one running at the deadline may
		// race it by a tick): at most 2 transfers began, and every one was closed by us mid-body.
		expect(result[0].at(-1).json.download_error).toBe(
			"Not downloaded: this poll's downloads did not finish within 1 s",
		);
		expect(transfers.length).toBeGreaterThanOrEqual(1);
		expect(transfers.length).toBeLessThanOrEqual(2);
		await transferEnded();
		expect(transfers.every((t) => t.closedByClient && t.sent < DRIBBLE_BYTES)).toBe(true);
	});
});

describe('an API request ends at its deadline, however the server sends', () => {
	test('a body dribbled over 6 s fails each attempt at a 1 s deadline (then the retry rules apply)', async () => {
		Object.assign(retryPolicy, { timeoutMs: 1_000, maxAttempts: 2 });
		const slowApi = http.createServer((req, res) => {
			const transfer = { sent: 0, closedByClient: false, done: false };
			transfers.push(transfer);
			const body = JSON.stringify({ id: 1, pad: 'x'.repeat(DRIBBLE_BYTES) });
			res.writeHead(200, {
				'content-type': 'application/json',
				'content-length': String(body.length),
			});
			res.on('close', () => {
				if (!transfer.done) transfer.closedByClient = true;
				transfer.done = true;
			});
			let at = 0;
			const timer = setInterval(() => {
				if (transfer.done) return clearInterval(timer);
				res.write(body.slice(at, ++at));
				transfer.sent = at;
				if (at === body.length) {
					clearInterval(timer);
					transfer.done = true;
					res.end();
				}
			}, DRIBBLE_EVERY_MS);
		});
		await new Promise((r) => slowApi.listen(0, '127.0.0.1', r));
		try {
			const { error } = await runNode({
				parameters: { resource: 'account', operation: 'get' },
				credentials: { ...credentials, baseUrl: `http://127.0.0.1:${slowApi.address().port}` },
			});
			expect(error?.message).toMatch(
				/Could not reach the Virtual Mailbox API \(GET \/v1\/account\): no complete answer within 1 s/,
			);
			expect(transfers).toHaveLength(2);
			await transferEnded();
			expect(transfers.every((t) => t.closedByClient && t.sent < DRIBBLE_BYTES)).toBe(true);
		} finally {
			slowApi.closeAllConnections();
			await new Promise((r) => slowApi.close(r));
		}
	});
});
