// A local copy of the Virtual Mailbox API (docs/api.md), the provider's endpoints beyond the
// published spec included, with a webhook sender and /_control endpoints that tests and
// `npm run dev` use to add mail, move scans along and inject faults, and the mailroom page (GET /mailroom). This file is the HTTP
// plumbing (auth, faults, routing, files); each section of the API has its module in routes/.
import fs from 'node:fs';
import http from 'node:http';
import { ApiError } from './paging.mjs';
import { Mailbox } from './mailbox.mjs';
import { fail, problemBody } from './problems.mjs';
import { WebhookSender } from './webhooks.mjs';
import { Quirks } from './quirks.mjs';
import { answerProblems, report, requestProblems } from '../support/conformance.mjs';
import { OPERATIONS } from '../support/schemas.mjs';
import accountRoutes from './routes/account.mjs';
import addressRoutes from './routes/addresses.mjs';
import bankAccountRoutes from './routes/bank-accounts.mjs';
import controlRoutes from './routes/control.mjs';
import folderRoutes from './routes/folders.mjs';
import mailRoutes from './routes/mail.mjs';
import sandboxRoutes from './routes/sandbox.mjs';
import scanRoutes from './routes/scans.mjs';
import shipmentRoutes from './routes/shipments.mjs';
import webhookRoutes from './routes/webhooks.mjs';

export const DEFAULT_KEYS = {
	apiKey: 'test_sk_simulator_full_access',
	readOnlyKey: 'test_sk_simulator_read_only',
};
export const DEFAULT_WEBHOOK_SECRET = 'whsec_simulator_0123456789abcdef';

/** The mailroom page: plain HTML and JS over the /_control endpoints, no build step. */
const MAILROOM_PAGE = new URL('./mailroom.html', import.meta.url);

const pattern = (prefix, path) =>
	new RegExp(`^${prefix}${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);

let simulatorsStarted = 0;

export async function startSimulator({
	port = 0,
	host = '127.0.0.1',
	count = 500,
	seed = 42,
	apiKey = DEFAULT_KEYS.apiKey,
	readOnlyKey = DEFAULT_KEYS.readOnlyKey,
	webhookSecret = DEFAULT_WEBHOOK_SECRET,
	letterShare,
	cursorMode,
	// The run's number where runs share one n8n (`npm run dev`): ids it makes are unlike any other session's (data.mjs seed).
	session = 0,
	// {mails, scans} with their own ids, kept through resets (`npm run dev`: the examples' pinned items).
	samples,
	log = () => {},
} = {}) {
	const mailbox = new Mailbox({ count, seed, letterShare, cursorMode, session, samples });
	// One account per simulator: the seeded account id with this simulator's number in its last digits.
	const simulatorNumber = ++simulatorsStarted;
	const accountId = () =>
		`${mailbox.db.account.id.slice(0, 24)}${simulatorNumber.toString(16).padStart(12, '0')}`;
	// latencyMs: every API answer waits this long (tests make concurrency visible with it);
	// onRequest: awaited with each API request's record before it is answered (tests change the
	// mailbox mid-read with it); inFlight: API requests being answered now, recorded on each.
	// unlistedValues: the mailbox may hold scan statuses the spec does not list (a model playing the
	// spec's "not shown" moves); answers are then checked against the SDK's types as declared.
	const settings = { latencyMs: 0, onRequest: undefined, unlistedValues: false };
	let inFlight = 0;
	const webhooks = new WebhookSender(mailbox, webhookSecret);
	const requests = [];
	const faults = [];
	const quirks = new Quirks();
	const reset = (options = {}) => {
		mailbox.reset(options);
		requests.length = 0;
		webhooks.deliveries.length = 0;
		faults.length = 0;
		quirks.clear();
		settings.latencyMs = 0;
		settings.onRequest = undefined;
		settings.unlistedValues = false;
	};
	const info = () => ({
		baseUrl: mailbox.baseUrl,
		apiKey,
		readOnlyKey,
		webhookSecret,
		mails: mailbox.db.mails.length,
		scans: mailbox.db.scans.length,
		folders: mailbox.db.folders.length,
	});

	const routes = [];
	// Every endpoint is one of the SDK's operations, with its request and answer shapes.
	const route = (method, path, handler, { write = method !== 'GET' } = {}) => {
		if (!OPERATIONS[`${method} ${path}`])
			throw new Error(
				`Simulator route ${method} ${path} has no SDK shapes in test/support/schemas.mjs OPERATIONS`,
			);
		routes.push({ method, path, regex: pattern('', path), handler, write });
	};
	const control = [];
	const ctl = (method, path, handler) =>
		control.push({ method, regex: pattern('/_control', path), handler });
	const sections = { mailbox, accountId, webhooks, requests, faults, quirks, reset, info };
	for (const register of [
		accountRoutes,
		mailRoutes,
		scanRoutes,
		sandboxRoutes,
		shipmentRoutes,
		folderRoutes,
		addressRoutes,
		bankAccountRoutes,
	])
		register(route, sections);
	for (const register of [controlRoutes, webhookRoutes]) register(ctl, sections);

	// Every API answer is checked against the SDK's shape for its operation (a mismatch fails the
	// test that caused it: test/support/conformance.mjs).
	const checkAnswer = (req, url, status, body) => {
		if (url.pathname.startsWith('/v1/'))
			report(
				`simulator answer to ${req.method} ${url.pathname}`,
				answerProblems(req.method, url.pathname, status, body, {
					declared: settings.unlistedValues,
				}),
			);
	};
	const problem = (req, url, res, error) => {
		const body = problemBody(error);
		checkAnswer(req, url, error.status ?? 500, body);
		res.writeHead(error.status ?? 500, {
			'content-type': 'application/problem+json',
			...(error.retryAfter !== undefined ? { 'retry-after': String(error.retryAfter) } : {}),
		});
		res.end(JSON.stringify(body));
	};
	const json = (res, status, body) => {
		if (body === undefined) return res.writeHead(status).end();
		res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
	};
	const readBody = (req) =>
		new Promise((resolve, reject) => {
			const chunks = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => resolve(Buffer.concat(chunks)));
			req.on('error', reject);
		});
	const parseJson = (raw) => {
		if (raw.length === 0) return {};
		try {
			const value = JSON.parse(raw.toString('utf8'));
			if (!value || typeof value !== 'object' || Array.isArray(value))
				throw new Error('not an object');
			return value;
		} catch {
			throw fail(400, 'The body is not a JSON object');
		}
	};
	/** A pre-signed result link: served only while its signature matches and it has not expired. */
	const serveFile = (res, url) => {
		const path = url.pathname;
		const expires = Number(url.searchParams.get('expires'));
		const sig = url.searchParams.get('sig') ?? '';
		if (sig !== mailbox.fileSignature(path, expires) || !(expires > Date.now())) {
			res
				.writeHead(403, { 'content-type': 'application/xml' })
				.end(
					'<Error><Code>AccessDenied</Code><Message>Request has expired or the signature does not match</Message></Error>',
				);
			return;
		}
		const name = path.split('/').pop();
		const isPdf = name.endsWith('.pdf');
		const content = isPdf
			? Buffer.from(`%PDF-1.4\n% simulated ${path}\n%%EOF\n`)
			: Buffer.from(`\xff\xd8\xff simulated envelope ${name}`, 'latin1');
		res
			.writeHead(200, {
				'content-type': isPdf ? 'application/pdf' : 'image/jpeg',
				'content-disposition': `attachment; filename="${name}"`,
				'content-length': content.length,
			})
			.end(content);
	};

	/** A quirked answer on the wire (quirks.mjs), in place of the API's. */
	const send = (res, record, quirk, wire) => {
		record.quirk = quirk.kind;
		quirks.applied.push({ kind: quirk.kind, method: record.method, path: record.path });
		res.writeHead(wire.status, wire.headers).end(wire.text);
	};
	const server = http.createServer(async (req, res) => {
		// Ids a `longIds` quirk sent out come back long: read them as the simulator's own.
		if (quirks.active) req.url = Quirks.readBack(req.url);
		const url = new URL(req.url, mailbox.baseUrl);
		try {
			if (url.pathname.startsWith('/files/')) return serveFile(res, url);
			if (req.method === 'GET' && url.pathname === '/favicon.ico') return res.writeHead(204).end();
			if (req.method === 'GET' && (url.pathname === '/mailroom' || url.pathname === '/')) {
				return res
					.writeHead(200, {
						'content-type': 'text/html; charset=utf-8',
						'cache-control': 'no-store',
					})
					.end(fs.readFileSync(MAILROOM_PAGE));
			}
			let raw = await readBody(req);
			if (quirks.active && raw.length) raw = Buffer.from(Quirks.readBack(raw.toString('utf8')));
			if (url.pathname.startsWith('/_control/')) {
				const entry = control.find((c) => c.method === req.method && c.regex.test(url.pathname));
				if (!entry) throw fail(404, `No control endpoint ${req.method} ${url.pathname}`);
				const result = await entry.handler({
					...url.pathname.match(entry.regex).groups,
					params: url.searchParams,
					body: parseJson(raw),
				});
				return json(res, 200, result);
			}
			const record = {
				method: req.method,
				path: url.pathname,
				query: Object.fromEntries(
					[...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)]),
				),
				body: raw.length ? raw.toString('utf8') : undefined,
				at: Date.now(),
			};
			requests.push(record);
			// Tests that probe the simulator with deliberately malformed requests say so with this header.
			if (req.headers['x-conformance'] !== 'off')
				report(`request ${req.method} ${url.pathname}${url.search}`, requestProblems(record));
			record.inFlight = ++inFlight;
			res.on('close', () => {
				inFlight--;
				record.status = res.statusCode;
				record.doneAt = Date.now();
			});
			if (settings.latencyMs)
				await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));
			await settings.onRequest?.(record);
			const auth = req.headers.authorization ?? '';
			const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
			record.key = key === apiKey ? 'full' : key === readOnlyKey ? 'read-only' : 'invalid';
			const fault = faults.find(
				(f) =>
					f.count > 0 &&
					url.pathname.includes(f.path) &&
					(!f.method || f.method === req.method) &&
					(!f.query || url.search.includes(f.query)) &&
					(!f.cursor || url.searchParams.has('cursor')),
			);
			if (fault) {
				fault.count--;
				if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
				if (fault.status === 'reset') return req.socket.destroy();
				if (fault.status !== 200) {
					// (200: slow but successful, so the real handler answers below)
					const error = fail(fault.status, `Injected fault ${fault.status}`);
					error.retryAfter = fault.retryAfter;
					return problem(req, url, res, error);
				}
			}
			const quirk = quirks.pick(record);
			const instead = quirk && Quirks.before(quirk);
			if (instead) return send(res, record, quirk, instead);
			if (key !== apiKey && key !== readOnlyKey)
				throw fail(401, key ? 'The API key is invalid' : 'Missing bearer API key');
			const entry = routes.find((r) => r.method === req.method && r.regex.test(url.pathname));
			if (!entry) {
				const other = routes.some((r) => r.regex.test(url.pathname));
				throw fail(
					other ? 400 : 404,
					other
						? `${req.method} is not supported on ${url.pathname}`
						: `No endpoint ${url.pathname}`,
				);
			}
			if (entry.write && key === readOnlyKey) throw fail(403, 'This API key may only read');
			const groups = Object.fromEntries(
				Object.entries(url.pathname.match(entry.regex).groups ?? {}).map(([k, v]) => [
					k,
					decodeURIComponent(v),
				]),
			);
			const body = ['POST', 'PATCH', 'PUT'].includes(req.method) ? parseJson(raw) : {};
			const result = await entry.handler({ ...groups, params: url.searchParams, body });
			const [status, payload] =
				Array.isArray(result) && typeof result[0] === 'number' ? result : [200, result];
			checkAnswer(req, url, status, payload);
			if (quirk) return send(res, record, quirk, Quirks.after(quirk, record, status, payload));
			json(res, status, payload);
		} catch (error) {
			if (error instanceof ApiError) return problem(req, url, res, error);
			log(`simulator error: ${error.stack}`);
			problem(req, url, res, fail(500, 'Simulator error'));
		}
	});
	await new Promise((resolve) => server.listen(port, host, resolve));
	mailbox.baseUrl = `http://${host}:${server.address().port}`;
	reset();
	return {
		url: mailbox.baseUrl,
		apiKey,
		readOnlyKey,
		webhookSecret,
		get db() {
			return mailbox.db;
		},
		/** The mailroom itself (addMail, createScan, setScanStatus, syncScanRef), for tests that change it in bulk. */
		mailbox,
		/** Tests that edit `db` directly call this, so that cached list queries see the change. */
		changed: () => mailbox.changed(),
		requests,
		settings,
		/** Answers as a real service behind real networks might (quirks.mjs; docs/simulator.md, "Quirks"). */
		quirks,
		deliveries: webhooks.deliveries,
		reset,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}
