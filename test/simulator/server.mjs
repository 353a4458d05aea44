// A local copy of the Virtual Mailbox API (docs/api.md), the provider's endpoints beyond the
// published spec included, with a webhook sender and /_control endpoints
// that tests and `npm run dev` use to add mail, move scans along and inject faults.
import crypto from 'node:crypto';
import http from 'node:http';
import { ApiError, paginate } from './paging.mjs';
import { queryMails } from './mail-query.mjs';
import { randomToken, seed, TYPE_LABELS, uuidFrom } from './data.mjs';

export const DEFAULT_KEYS = { apiKey: 'test_sk_simulator_full_access', readOnlyKey: 'test_sk_simulator_read_only' };
export const DEFAULT_WEBHOOK_SECRET = 'whsec_simulator_0123456789abcdef';
const iso = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const TITLES = { 400: 'Bad request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not found', 409: 'Conflict', 422: 'Validation failed', 429: 'Too many requests', 500: 'Internal error', 503: 'Service unavailable' };
const CODES = { 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 422: 'validation_error', 429: 'rate_limited', 500: 'internal_error', 503: 'unavailable' };
const fail = (status, detail, errors) => new ApiError(status, CODES[status], TITLES[status], detail, errors);
const notFound = (what, id) => fail(404, `No ${what} with id ${id}`);

export async function startSimulator({
	port = 0,
	host = '127.0.0.1',
	count = 500,
	seed: seedValue = 42,
	apiKey = DEFAULT_KEYS.apiKey,
	readOnlyKey = DEFAULT_KEYS.readOnlyKey,
	webhookSecret = DEFAULT_WEBHOOK_SECRET,
	foldersShape = 'array',
	log = () => {},
} = {}) {
	const fileSecret = crypto.randomBytes(16);
	let baseUrl = '';
	let db;
	let version = 0;
	const cache = new Map();
	const requests = [];
	const deliveries = [];
	let faults = [];
	let webhooks = [];

	const reset = (options = {}) => {
		db = seed({ count: options.count ?? count, seed: options.seed ?? seedValue, baseUrl });
		sortMails();
		requests.length = 0;
		deliveries.length = 0;
		faults = [];
		changed();
	};
	const changed = () => {
		version++;
		cache.clear();
	};
	// Newest first, ties by id: the order every list query starts from.
	const sortMails = () => db.mails.sort((a, b) => Date.parse(b.arrival_date) - Date.parse(a.arrival_date) || Number(b.id) - Number(a.id));

	// ---- presentation: internal records → the spec's resource shapes -------------------------
	const signedUrl = (path, ttlMs = 3 * 86_400_000) => {
		const expires = Date.now() + ttlMs;
		const sig = crypto.createHmac('sha256', fileSecret).update(`${path}:${expires}`).digest('hex').slice(0, 32);
		return `${baseUrl}${path}?expires=${expires}&sig=${sig}`;
	};
	const mailEntry = (m) => ({
		id: m.id, is_read: m.is_read, mail_status: m.mail_status, mail_type: m.mail_type, folder_id: m.folder_id,
		sender_name: m.sender_name, recipient_name: m.recipient_name, arrival_date: m.arrival_date,
		envelope_image_url: signedUrl(`/files/envelopes/${m.id}.jpg`), quarantine_reason: m.quarantine_reason, scan: m.scan ? { ...m.scan } : null,
	});
	const mailDetail = (m) => {
		const { folder_id, ...entry } = mailEntry(m);
		const folder = folder_id ? db.folders.find((f) => f.id === folder_id) : null;
		return {
			...entry,
			mail_type_label: TYPE_LABELS[m.mail_type] ?? m.mail_type,
			measurement: m.measurement,
			weight: m.weight,
			has_storage_charges: m.has_storage_charges,
			tracking_number: m.tracking_number,
			sender_address: m.sender_address,
			folder: folder ? { id: folder.id, name: folder.name, color: folder.color } : null,
		};
	};
	const scanOut = ({ summary: _s, ...scan }) => ({ ...scan });
	const bankOut = ({ account_number, ...rest }) => ({ ...rest, account_number_last4: account_number.slice(-4) });

	const find = (list, id, what) => {
		const found = list.find((x) => x.id === id);
		if (!found) throw notFound(what, id);
		return found;
	};
	const mailById = (id) => find(db.mails, id, 'mail item');
	const scanById = (id) => find(db.scans, id, 'scan');
	const syncScanRef = (scan) => {
		const mail = db.mails.find((m) => m.id === scan.mail_id);
		if (mail) mail.scan = { uuid: scan.id, status: scan.status, category: scan.type, label: scan.label };
	};

	// ---- request body checks ------------------------------------------------------------------
	const requireFields = (body, fields) => {
		const errors = fields.filter((f) => typeof body[f] !== 'string' || body[f].trim() === '').map((field) => ({ field, message: 'is required', code: 'required' }));
		if (errors.length) throw fail(422, `Missing required fields: ${errors.map((e) => e.field).join(', ')}`, errors);
	};
	const optionalStrings = (body, fields) => {
		const errors = fields.filter((f) => body[f] !== undefined && body[f] !== null && typeof body[f] !== 'string').map((field) => ({ field, message: 'must be a string', code: 'type' }));
		if (errors.length) throw fail(422, 'Invalid field types', errors);
	};
	const checkColor = (color) => {
		if (color !== undefined && color !== null && !/^#[0-9A-Fa-f]{6}$/.test(color)) throw fail(422, 'color must be #RRGGBB', [{ field: 'color', message: 'must be #RRGGBB', code: 'format' }]);
	};
	const ADDRESS_FIELDS = ['name', 'line1', 'line2', 'line3', 'city', 'state', 'postal_code', 'country', 'phone_number', 'tax_id'];

	// ---- webhook sender ----------------------------------------------------------------------
	const signDelivery = (raw, { secret = webhookSecret, timestamp = Date.now() } = {}) => ({
		'content-type': 'application/json',
		'USGM-Webhook-Signature': crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex'),
		'USGM-Webhook-Timestamp': String(timestamp),
	});
	/** POST one delivery, once, no retry (spec "Delivery behavior"); record the outcome. */
	const post = async (event, url, raw, headers, variant) => {
		const record = { event, url, variant, status: null, error: null, at: iso() };
		try {
			const response = await fetch(url, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(10_000) });
			record.status = response.status;
			await response.arrayBuffer();
		} catch (error) {
			record.error = error.message;
		}
		deliveries.push(record);
		return record;
	};
	const send = async (event, payload, { variant = 'valid', url, timestamp } = {}) => {
		const targets = url ? [url] : webhooks.filter((w) => w.event === event).map((w) => w.url);
		const raw = Buffer.from(JSON.stringify(payload));
		const results = [];
		for (const target of targets) {
			let body = raw;
			let headers;
			if (variant === 'forged') headers = signDelivery(raw, { secret: 'whsec_forged_by_someone_else' });
			else if (variant === 'stale') headers = signDelivery(raw, { timestamp: Date.now() - 60 * 60_000 });
			else if (variant === 'future') headers = signDelivery(raw, { timestamp: Date.now() + 60 * 60_000 });
			else if (variant === 'unsigned') headers = { 'content-type': 'application/json' };
			else if (variant === 'tampered') {
				headers = signDelivery(raw);
				body = Buffer.from(JSON.stringify({ ...payload, sender_name: 'Mallory' }));
			} else headers = signDelivery(raw, { timestamp });
			results.push(await post(event, target, body, headers, variant));
		}
		return results;
	};
	const payloadFor = {
		'new-mail': (m) => ({
			id: Number(m.id), mail_type: m.mail_type.toUpperCase(), mail_status: m.mail_status.toUpperCase(), weight: m.weight.toFixed(2),
			measurement: Object.fromEntries(Object.entries(m.measurement).map(([k, v]) => [k, v.toFixed(2)])),
			recipient_name: m.recipient_name, sender_name: m.sender_name, image_url: signedUrl(`/files/envelopes/${m.id}.jpg`),
			message: `New ${TYPE_LABELS[m.mail_type].toLowerCase()} from ${m.sender_name}`,
		}),
		'scan-update': (s) => {
			const m = mailById(s.mail_id);
			return {
				id: Number(m.id), uuid: s.id, mail_type: m.mail_type.toUpperCase(), current_status: s.status,
				scan_result_url: signedUrl(`/files/scans/${s.id}.pdf`),
				...(s.label ? { ai_label: s.label } : {}), ...(s.summary ? { ai_summary: s.summary.join('\n') } : {}),
				recipient_name: m.recipient_name, sender_name: m.sender_name, message: `Scan ${s.status.toLowerCase()}`,
			};
		},
		'open-update': (s) => {
			const m = mailById(s.mail_id);
			return {
				id: Number(m.id), uuid: s.id, mail_type: m.mail_type.toUpperCase(), current_status: s.status,
				open_result_url: signedUrl(`/files/opens/${s.id}.pdf`), recipient_name: m.recipient_name, sender_name: m.sender_name,
				message: `Open request ${s.status.toLowerCase()}`,
			};
		},
		'shipment-update': (sh) => {
			const d = sh.destination ?? {};
			return {
				id: sh.id, status: sh.status.toUpperCase(), service: sh.service_name ?? '', tracking_data: sh.tracking_number ?? '', auto_forward: 'false',
				destination_address: {
					name: d.name ?? '', address_line: d.line1 ?? '', address_line_2: d.line2 ?? '', address_line_3: '', city: d.city ?? '', state: d.state ?? '',
					postal_code: d.postal_code ?? '', country: d.country ?? '', address_type: 'shipping', tax_id: '', phone_number: '',
				},
				message: `Shipment ${sh.status}`,
			};
		},
	};
	const scanEvent = (scan) => (scan.type === 'UNBOXING_REQUEST' ? 'open-update' : 'scan-update');

	const addMail = (fields = {}) => {
		const id = String(db.nextMailId++);
		const mail_type = fields.mail_type ?? 'letter';
		const mail = {
			id, is_read: false, mail_status: fields.mail_status ?? 'inbox', mail_type, folder_id: null,
			sender_name: fields.sender_name ?? 'City Utilities', recipient_name: fields.recipient_name ?? 'Ada Lovelace',
			arrival_date: iso(), envelope_image_url: `${baseUrl}/files/envelopes/${id}.jpg`, quarantine_reason: null, scan: null,
			weight: Number(fields.weight ?? (mail_type === 'package' ? 2.5 : 0.1)),
			measurement: fields.measurement ?? { width: 9.5, height: 4.1, length: 0.2 },
			tracking_number: null, sender_address: '1 Sender Rd, Springfield', has_storage_charges: false, previous_status: null,
		};
		db.mails.unshift(mail);
		changed();
		return mail;
	};
	const createScan = (mail, type, extra = {}) => {
		const scan = {
			id: uuidFrom(db.random), mail_id: mail.id, type, status: 'IN_PROCESS', is_expedited: Boolean(extra.is_expedited),
			created_at: iso(), updated_at: iso(), instruction: extra.instruction ?? null, reject_reason: null, label: null,
			status_updated_at: iso(), auto_delete_on: null, summary: null,
		};
		db.scans.push(scan);
		syncScanRef(scan);
		changed();
		return scan;
	};
	const setScanStatus = (scan, status, extra = {}) => {
		scan.status = status;
		scan.updated_at = scan.status_updated_at = iso();
		if (extra.label !== undefined) scan.label = extra.label;
		if (extra.summary !== undefined) scan.summary = extra.summary;
		if (status === 'COMPLETED') scan.auto_delete_on = iso(Date.now() + 120 * 86_400_000);
		syncScanRef(scan);
		changed();
	};

	// ---- routes ----------------------------------------------------------------------------
	const routes = [];
	const route = (method, pattern, handler, { write = method !== 'GET' } = {}) =>
		routes.push({ method, regex: new RegExp(`^${pattern.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`), handler, write });

	route('GET', '/v1/account', () => db.account);
	route('GET', '/v1/account/mailing-address', () => ({
		box_number: db.account.box_number, formatted: `2108 N St PMB ${db.account.box_number}, Sacramento, CA, 95816, US`,
		line1: '2108 N St', line2: null, line3: null, city: 'Sacramento', state: 'CA', postal_code: '95816', country: 'US',
	}));

	route('GET', '/v1/mails', ({ params }) => {
		const key = `${version}|${params.toString().replace(/&?(cursor|limit)=[^&]*/g, '')}`;
		let list = cache.get(key);
		if (!list) {
			list = queryMails(db.mails, params);
			cache.set(key, list);
		}
		const page = paginate('/v1/mails', params, list);
		return { ...page, data: page.data.map(mailEntry) };
	});
	route('GET', '/v1/mails/{id}', ({ id }) => mailDetail(mailById(id)));
	route('PATCH', '/v1/mails/{id}', ({ id, body }) => {
		const mail = mailById(id);
		if (body.is_read !== undefined && typeof body.is_read !== 'boolean') throw fail(422, 'is_read must be a boolean', [{ field: 'is_read', message: 'must be a boolean' }]);
		if (body.folder_id !== undefined && body.folder_id !== null) {
			if (!db.folders.some((f) => f.id === String(body.folder_id))) throw fail(422, `No folder ${body.folder_id}`, [{ field: 'folder_id', message: 'unknown folder' }]);
		}
		if (body.is_read !== undefined) mail.is_read = body.is_read;
		if (body.folder_id !== undefined) mail.folder_id = body.folder_id === null ? null : String(body.folder_id);
		changed();
		return mailDetail(mail);
	});
	const moveMail = (to, allowedFrom) => ({ id }) => {
		const mail = mailById(id);
		if (!allowedFrom(mail)) throw fail(409, `Mail item ${id} is ${mail.mail_status}`);
		mail.previous_status = to === 'inbox' ? null : mail.mail_status;
		mail.mail_status = to === 'inbox' ? 'inbox' : to;
		changed();
		return mailDetail(mail);
	};
	route('POST', '/v1/mails/{id}/undiscard', moveMail('inbox', (m) => m.mail_status === 'discard_request'));
	route('POST', '/v1/mails/{id}/archive', moveMail('archived', (m) => m.mail_status === 'inbox'));
	route('POST', '/v1/mails/{id}/unarchive', moveMail('inbox', (m) => m.mail_status === 'archived'));
	route('POST', '/v1/mails/{id}/discard', moveMail('discard_request', (m) => m.mail_status === 'inbox' || m.mail_status === 'archived'));

	route('GET', '/v1/scans', ({ params }) => paginate('/v1/scans', params, [...db.scans].reverse().map(scanOut)));
	route('POST', '/v1/scans', ({ body }) => {
		requireFields(body, ['mail_id', 'type']);
		if (!['scan', 'open'].includes(body.type)) throw fail(422, 'type must be scan or open', [{ field: 'type', message: 'must be scan or open' }]);
		const mail = mailById(String(body.mail_id));
		if (mail.scan && mail.scan.status === 'IN_PROCESS') throw fail(409, `Mail item ${mail.id} already has a scan in process`);
		return [201, scanOut(createScan(mail, body.type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST', body))];
	});
	route('GET', '/v1/scans/{id}', ({ id }) => scanOut(scanById(id)));
	route('DELETE', '/v1/scans/{id}', ({ id }) => {
		const scan = scanById(id);
		setScanStatus(scan, 'DELETED');
		return [204, undefined];
	});
	route('GET', '/v1/scans/{id}/file', ({ id }) => {
		const scan = scanById(id);
		if (scan.status !== 'COMPLETED') throw fail(409, `Scan ${id} is ${scan.status}; only completed scans have a file`);
		const path = scan.type === 'UNBOXING_REQUEST' ? `/files/opens/${id}.pdf` : `/files/scans/${id}.pdf`;
		return { url: signedUrl(path, 15 * 60_000), expires_at: iso(Date.now() + 15 * 60_000) };
	});
	route('POST', '/v1/scans/{id}/cancel', ({ id }) => {
		const scan = scanById(id);
		if (scan.status !== 'IN_PROCESS') throw fail(409, `Only scans in process can be cancelled; this one is ${scan.status}`);
		setScanStatus(scan, 'CANCELLED');
		return scanOut(scan);
	});
	route('GET', '/v1/scans/{id}/summary', ({ id }) => {
		const scan = scanById(id);
		return { label: scan.label ?? null, summary: scan.summary ?? null };
	});
	route('POST', '/v1/sandbox/scans/{id}/complete', ({ id, body }) => {
		const scan = scanById(id);
		optionalStrings(body, ['label']);
		if (body.summary !== undefined && (!Array.isArray(body.summary) || body.summary.some((s) => typeof s !== 'string'))) {
			throw fail(422, 'summary must be a list of strings', [{ field: 'summary', message: 'must be a list of strings' }]);
		}
		if (scan.status !== 'IN_PROCESS') throw fail(409, `Only pending scans can be completed; this one is ${scan.status}`);
		setScanStatus(scan, 'COMPLETED', { label: body.label ?? scan.label, summary: body.summary ?? scan.summary });
		return scanOut(scan);
	});
	route('POST', '/v1/sandbox/seed/mail', ({ body }) => [201, mailEntry(addMail(body))]);

	route('GET', '/v1/shipments', ({ params }) => {
		const types = params.getAll('type');
		const statuses = params.getAll('status');
		return paginate('/v1/shipments', params, db.shipments.filter((s) => (!types.length || types.includes(s.type)) && (!statuses.length || statuses.includes(s.status))));
	});
	route('GET', '/v1/shipments/{id}', ({ id }) => find(db.shipments, id, 'shipment'));

	route('GET', '/v1/folders', () => (foldersShape === 'object' ? { data: db.folders } : db.folders));
	route('POST', '/v1/folders', ({ body }) => {
		requireFields(body, ['name']);
		checkColor(body.color);
		const folder = { id: String(Math.max(0, ...db.folders.map((f) => Number(f.id))) + 1), name: body.name, created_on: iso(), updated_on: iso(), color: body.color ?? null };
		db.folders.push(folder);
		return [201, folder];
	});
	route('GET', '/v1/folders/{id}', ({ id }) => find(db.folders, id, 'folder'));
	route('PATCH', '/v1/folders/{id}', ({ id, body }) => {
		const folder = find(db.folders, id, 'folder');
		optionalStrings(body, ['name', 'color']);
		checkColor(body.color);
		if (body.name !== undefined) folder.name = body.name;
		if (body.color !== undefined) folder.color = body.color;
		folder.updated_on = iso();
		return folder;
	});
	route('DELETE', '/v1/folders/{id}', ({ id }) => {
		find(db.folders, id, 'folder');
		db.folders = db.folders.filter((f) => f.id !== id);
		for (const mail of db.mails) if (mail.folder_id === id) mail.folder_id = null;
		changed();
		return [204, undefined];
	});

	route('POST', '/v1/addresses', ({ body }) => {
		if (!['shipping', 'deposit'].includes(body.type)) throw fail(422, 'type must be shipping or deposit', [{ field: 'type', message: 'must be shipping or deposit' }]);
		requireFields(body, ['name', 'line1', 'city', 'state', 'postal_code', 'country', 'phone_number']);
		optionalStrings(body, ['line2', 'line3', 'tax_id']);
		const address = { id: uuidFrom(db.random), type: body.type, is_default: !db.addresses.some((a) => a.type === body.type) };
		for (const field of ADDRESS_FIELDS) address[field] = body[field] ?? null;
		db.addresses.push(address);
		return [201, address];
	});
	route('GET', '/v1/addresses', ({ params }) => paginate('/v1/addresses', params, db.addresses));
	route('GET', '/v1/addresses/default', ({ params }) => {
		const type = params.get('type');
		if (!['shipping', 'deposit'].includes(type)) throw fail(422, 'type must be shipping or deposit', [{ field: 'type', message: 'is required' }]);
		const address = db.addresses.find((a) => a.type === type && a.is_default);
		if (!address) throw fail(404, `No default ${type} address`);
		return address;
	});
	route('GET', '/v1/addresses/{id}', ({ id }) => find(db.addresses, id, 'address'));
	route('PATCH', '/v1/addresses/{id}', ({ id, body }) => {
		const address = find(db.addresses, id, 'address');
		optionalStrings(body, ADDRESS_FIELDS);
		for (const field of ADDRESS_FIELDS) if (body[field] !== undefined) address[field] = body[field];
		return address;
	});
	route('DELETE', '/v1/addresses/{id}', ({ id }) => {
		find(db.addresses, id, 'address');
		db.addresses = db.addresses.filter((a) => a.id !== id);
		return [204, undefined];
	});

	route('POST', '/v1/bank-accounts', ({ body }) => {
		requireFields(body, ['bank_name', 'bank_state', 'account_number']);
		if (!/^\d{4,17}$/.test(body.account_number)) throw fail(422, 'account_number must be 4 to 17 digits', [{ field: 'account_number', message: 'must be 4 to 17 digits' }]);
		const account = { id: uuidFrom(db.random), bank_name: body.bank_name, bank_state: body.bank_state, account_number: body.account_number };
		db.bankAccounts.push(account);
		return [201, bankOut(account)];
	});
	route('GET', '/v1/bank-accounts', ({ params }) => paginate('/v1/bank-accounts', params, db.bankAccounts.map(bankOut)));
	route('GET', '/v1/bank-accounts/{id}', ({ id }) => bankOut(find(db.bankAccounts, id, 'bank account')));
	route('PATCH', '/v1/bank-accounts/{id}', ({ id, body }) => {
		const account = find(db.bankAccounts, id, 'bank account');
		optionalStrings(body, ['bank_name', 'bank_state', 'account_number']);
		if (body.account_number !== undefined && !/^\d{4,17}$/.test(body.account_number)) throw fail(422, 'account_number must be 4 to 17 digits', [{ field: 'account_number', message: 'must be 4 to 17 digits' }]);
		for (const field of ['bank_name', 'bank_state', 'account_number']) if (body[field] !== undefined) account[field] = body[field];
		return bankOut(account);
	});
	route('DELETE', '/v1/bank-accounts/{id}', ({ id }) => {
		find(db.bankAccounts, id, 'bank account');
		db.bankAccounts = db.bankAccounts.filter((a) => a.id !== id);
		return [204, undefined];
	});

	// ---- control endpoints (no auth; loopback only) -------------------------------------------
	const control = [];
	const ctl = (method, pattern, handler) => control.push({ method, regex: new RegExp(`^/_control${pattern.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`), handler });
	ctl('POST', '/reset', ({ body }) => {
		reset(body);
		return { mails: db.mails.length };
	});
	ctl('GET', '/info', () => ({ baseUrl, apiKey, readOnlyKey, webhookSecret, mails: db.mails.length, scans: db.scans.length, folders: db.folders.length }));
	ctl('GET', '/requests', () => requests);
	ctl('DELETE', '/requests', () => {
		requests.length = 0;
		return {};
	});
	ctl('GET', '/query', ({ params }) => queryMails(db.mails, params).map((m) => m.id));
	ctl('GET', '/state', () => ({ mails: db.mails.map(mailEntry), scans: db.scans.map(scanOut), folders: db.folders, shipments: db.shipments }));
	ctl('POST', '/faults', ({ body }) => {
		faults.push({ path: body.path ?? '', method: body.method, status: body.status ?? 500, count: body.count ?? 1, retryAfter: body.retryAfter, delayMs: body.delayMs ?? 0 });
		return { faults: faults.length };
	});
	ctl('DELETE', '/faults', () => {
		faults = [];
		return {};
	});
	ctl('POST', '/webhooks', ({ body }) => {
		if (!payloadFor[body.event]) throw fail(422, 'unknown event');
		if (!webhooks.some((w) => w.event === body.event && w.url === body.url)) webhooks.push({ event: body.event, url: body.url });
		return webhooks;
	});
	ctl('GET', '/webhooks', () => webhooks);
	ctl('DELETE', '/webhooks', () => {
		webhooks = [];
		return {};
	});
	ctl('GET', '/deliveries', () => deliveries);
	ctl('POST', '/mail', async ({ body }) => {
		const mail = addMail(body);
		return { mail: mailEntry(mail), deliveries: await send('new-mail', payloadFor['new-mail'](mail)) };
	});
	ctl('POST', '/mails/{id}/scan', ({ id, body }) => scanOut(createScan(mailById(id), body.type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST', body)));
	ctl('POST', '/scans/{id}/status', async ({ id, body }) => {
		const scan = scanById(id);
		setScanStatus(scan, body.status ?? 'COMPLETED', body);
		return { scan: scanOut(scan), deliveries: await send(scanEvent(scan), payloadFor[scanEvent(scan)](scan)) };
	});
	ctl('POST', '/shipments/{id}/status', async ({ id, body }) => {
		const shipment = find(db.shipments, id, 'shipment');
		shipment.status = body.status ?? 'shipped';
		return { shipment, deliveries: await send('shipment-update', payloadFor['shipment-update'](shipment)) };
	});
	/** A crafted delivery of an existing resource: variant valid|forged|tampered|stale|future|unsigned. */
	ctl('POST', '/deliver', async ({ body }) => {
		const event = body.event;
		const subject =
			event === 'new-mail' ? mailById(body.id ?? db.mails[0].id)
				: event === 'shipment-update' ? find(db.shipments, body.id ?? db.shipments[0].id, 'shipment')
					: scanById(body.id ?? db.scans.find((s) => scanEvent(s) === event)?.id);
		const payload = { ...payloadFor[event](subject), ...(body.override ?? {}) };
		return { payload, deliveries: await send(event, payload, { variant: body.variant, url: body.url, timestamp: body.timestamp }) };
	});

	// ---- HTTP plumbing --------------------------------------------------------------------
	const problem = (res, error) => {
		const status = error.status ?? 500;
		const body = {
			type: `https://errors.virtual-mailbox.test/${error.code ?? CODES[status]}`,
			title: error.title ?? TITLES[status] ?? 'Error',
			status,
			code: error.code ?? CODES[status] ?? 'error',
			request_id: `req_${randomToken()}`,
			...(error.detail ? { detail: error.detail } : {}),
			...(error.errors ? { errors: error.errors } : {}),
		};
		res.writeHead(status, { 'content-type': 'application/problem+json', ...(error.retryAfter !== undefined ? { 'retry-after': String(error.retryAfter) } : {}) });
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
			if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
			return value;
		} catch {
			throw fail(400, 'The body is not a JSON object');
		}
	};
	const serveFile = (res, url) => {
		const path = url.pathname;
		const expires = Number(url.searchParams.get('expires'));
		const sig = url.searchParams.get('sig') ?? '';
		const expected = crypto.createHmac('sha256', fileSecret).update(`${path}:${expires}`).digest('hex').slice(0, 32);
		if (sig !== expected || !(expires > Date.now())) {
			res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code><Message>Request has expired or the signature does not match</Message></Error>');
			return;
		}
		const name = path.split('/').pop();
		const isPdf = name.endsWith('.pdf');
		const content = isPdf ? Buffer.from(`%PDF-1.4\n% simulated ${path}\n%%EOF\n`) : Buffer.from(`\xff\xd8\xff simulated envelope ${name}`, 'latin1');
		res.writeHead(200, { 'content-type': isPdf ? 'application/pdf' : 'image/jpeg', 'content-disposition': `attachment; filename="${name}"`, 'content-length': content.length }).end(content);
	};

	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url, baseUrl);
		try {
			if (url.pathname.startsWith('/files/')) return serveFile(res, url);
			const raw = await readBody(req);
			if (url.pathname.startsWith('/_control/')) {
				const entry = control.find((c) => c.method === req.method && c.regex.test(url.pathname));
				if (!entry) throw fail(404, `No control endpoint ${req.method} ${url.pathname}`);
				const result = await entry.handler({ ...url.pathname.match(entry.regex).groups, params: url.searchParams, body: parseJson(raw) });
				return json(res, 200, result);
			}
			const record = { method: req.method, path: url.pathname, query: Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)])), body: raw.length ? raw.toString('utf8') : undefined, at: Date.now() };
			requests.push(record);
			const auth = req.headers.authorization ?? '';
			const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
			record.key = key === apiKey ? 'full' : key === readOnlyKey ? 'read-only' : 'invalid';
			const fault = faults.find((f) => f.count > 0 && url.pathname.includes(f.path) && (!f.method || f.method === req.method));
			if (fault) {
				fault.count--;
				if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
				if (fault.status === 'reset') return req.socket.destroy();
				if (fault.status === 200) {
					// slow but successful: fall through to the real handler
				} else {
					const error = fail(fault.status, `Injected fault ${fault.status}`);
					error.retryAfter = fault.retryAfter;
					return problem(res, error);
				}
			}
			if (key !== apiKey && key !== readOnlyKey) throw fail(401, key ? 'The API key is invalid' : 'Missing bearer API key');
			const entry = routes.find((r) => r.method === req.method && r.regex.test(url.pathname));
			if (!entry) {
				const other = routes.some((r) => r.regex.test(url.pathname));
				throw fail(other ? 400 : 404, other ? `${req.method} is not supported on ${url.pathname}` : `No endpoint ${url.pathname}`);
			}
			if (entry.write && key === readOnlyKey) throw fail(403, 'This API key may only read');
			const groups = Object.fromEntries(Object.entries(url.pathname.match(entry.regex).groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
			const body = ['POST', 'PATCH', 'PUT'].includes(req.method) ? parseJson(raw) : {};
			const result = await entry.handler({ ...groups, params: url.searchParams, body });
			const [status, payload] = Array.isArray(result) && typeof result[0] === 'number' ? result : [200, result];
			json(res, status, payload);
		} catch (error) {
			if (error instanceof ApiError) return problem(res, error);
			log(`simulator error: ${error.stack}`);
			problem(res, fail(500, 'Simulator error'));
		}
	});
	await new Promise((resolve) => server.listen(port, host, resolve));
	baseUrl = `http://${host}:${server.address().port}`;
	reset();
	return {
		url: baseUrl,
		apiKey,
		readOnlyKey,
		webhookSecret,
		get db() {
			return db;
		},
		requests,
		deliveries,
		reset,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}
