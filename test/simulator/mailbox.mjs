// The simulated account's data and what changes it: seeded records, the API's resource shapes
// (docs/api.md, "Resources"), signed file links, and the moves a real mailroom makes.
import crypto from 'node:crypto';
import { scanKindFor, seed, sessionUuid, TYPE_LABELS } from './data.mjs';
import { fail, notFound } from './problems.mjs';

export const iso = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class Mailbox {
	constructor({
		count,
		seed: seedValue,
		letterShare,
		cursorMode = 'offset',
		session = 0,
		samples,
	}) {
		this.defaults = { count, seed: seedValue, letterShare, cursorMode };
		/** Mail and scans with given ids, added to the seeded ones at each reset (`npm run dev`: the examples' pinned items). */
		this.samples = samples;
		this.session = session;
		this.fileSecret = crypto.randomBytes(16);
		this.baseUrl = '';
		this.version = 0;
		/** GET /v1/mails results by query, valid until the next change. */
		this.queryCache = new Map();
	}

	reset(options = {}) {
		/** 'offset' cursors count positions (the default); 'keyset' cursors go on after the last item read (paging.mjs). */
		this.cursorMode = options.cursorMode ?? this.defaults.cursorMode;
		this.db = seed({
			count: options.count ?? this.defaults.count,
			seed: options.seed ?? this.defaults.seed,
			letterShare: options.letterShare ?? this.defaults.letterShare,
			baseUrl: this.baseUrl,
			session: this.session,
		});
		if (this.samples) this.addSamples(this.samples);
		// Newest first, ties by id: the order every list query starts from.
		this.db.mails.sort(
			(a, b) =>
				Date.parse(b.arrival_date) - Date.parse(a.arrival_date) || Number(b.id) - Number(a.id),
		);
		this.changed();
	}

	changed() {
		this.version++;
		this.queryCache.clear();
	}

	// ---- presentation: internal records → the API's resource shapes ----
	signedUrl(path, ttlMs = 3 * 86_400_000) {
		const expires = Date.now() + ttlMs;
		return `${this.baseUrl}${path}?expires=${expires}&sig=${this.fileSignature(path, expires)}`;
	}

	fileSignature(path, expires) {
		return crypto
			.createHmac('sha256', this.fileSecret)
			.update(`${path}:${expires}`)
			.digest('hex')
			.slice(0, 32);
	}

	mailEntry(m) {
		return {
			id: m.id,
			is_read: m.is_read,
			mail_status: m.mail_status,
			mail_type: m.mail_type,
			folder_id: m.folder_id,
			sender_name: m.sender_name,
			recipient_name: m.recipient_name,
			arrival_date: m.arrival_date,
			envelope_image_url: this.signedUrl(`/files/envelopes/${m.id}.jpg`),
			quarantine_reason: m.quarantine_reason,
			scan: m.scan ? { ...m.scan } : null,
		};
	}

	mailDetail(m) {
		const { folder_id, ...entry } = this.mailEntry(m);
		const folder = folder_id ? this.db.folders.find((f) => f.id === folder_id) : null;
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
	}

	scanOut({ summary: _s, ...scan }) {
		return { ...scan };
	}

	bankOut({ account_number, ...rest }) {
		return { ...rest, account_number_last4: account_number.slice(-4) };
	}

	/** The id of a record made now: scan, shipment, address, bank account (never one an earlier session made). */
	newUuid() {
		return sessionUuid(this.db.random, this.session);
	}

	// ---- look-ups ----
	find(list, id, what) {
		const found = list.find((x) => x.id === id);
		if (!found) throw notFound(what, id);
		return found;
	}

	mailById(id) {
		return this.find(this.db.mails, id, 'mail item');
	}

	scanById(id) {
		return this.find(this.db.scans, id, 'scan');
	}

	/** {mails, scans}: records with their own ids and contents, arrived three days ago. */
	addSamples({ mails = [], scans = [] }) {
		const arrived = iso(Date.now() - 3 * 86_400_000);
		for (const fields of mails) {
			if (this.db.mails.some((m) => m.id === fields.id))
				throw new Error(`sample mail id ${fields.id} is a seeded mail item's`);
			const mail = this.addMail({ arrival_date: arrived, ...fields });
			this.db.nextMailId--; // addMail drew a new id: the sample has its own
			mail.id = fields.id;
			mail.envelope_image_url = `${this.baseUrl}/files/envelopes/${fields.id}.jpg`;
		}
		for (const fields of scans) {
			if (this.db.scans.some((s) => s.id === fields.id))
				throw new Error(`sample scan id ${fields.id} is a seeded scan's`);
			const scan = {
				is_expedited: false,
				created_at: arrived,
				updated_at: arrived,
				instruction: null,
				reject_reason: null,
				status_updated_at: arrived,
				auto_delete_on: fields.status === 'COMPLETED' ? iso(Date.now() + 117 * 86_400_000) : null,
				...fields,
			};
			this.db.scans.push(scan);
			this.syncScanRef(scan);
		}
	}

	// ---- what the mailroom does ----
	addMail(fields = {}) {
		const id = String(this.db.nextMailId++);
		const mail_type = fields.mail_type ?? 'letter';
		const mail = {
			id,
			is_read: false,
			mail_status: fields.mail_status ?? 'inbox',
			mail_type,
			folder_id: null,
			sender_name: fields.sender_name ?? 'City Utilities',
			recipient_name: fields.recipient_name ?? 'Ada Lovelace',
			arrival_date: fields.arrival_date ?? iso(),
			envelope_image_url: `${this.baseUrl}/files/envelopes/${id}.jpg`,
			quarantine_reason: null,
			scan: null,
			weight: Number(fields.weight ?? (mail_type === 'package' ? 2.5 : 0.1)),
			measurement: fields.measurement ?? { width: 9.5, height: 4.1, length: 0.2 },
			tracking_number: null,
			sender_address: '1 Sender Rd, Springfield',
			has_storage_charges: false,
			previous_status: null,
		};
		this.db.mails.unshift(mail);
		this.changed();
		return mail;
	}

	/** A scan request (`SCAN_REQUEST`) of a letter or an open-and-scan (`UNBOXING_REQUEST`) of anything else; the other pairs are refused (422 on `type`). */
	createScan(mail, type, extra = {}) {
		const kind = scanKindFor(mail.mail_type);
		if (type !== (kind === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST')) {
			throw fail(422, `Mail item ${mail.id} is a ${mail.mail_type}; it takes type ${kind}`, [
				{ field: 'type', message: `must be ${kind} for a ${mail.mail_type}` },
			]);
		}
		const scan = {
			id: this.newUuid(),
			mail_id: mail.id,
			type,
			status: 'IN_PROCESS',
			is_expedited: Boolean(extra.is_expedited),
			created_at: iso(),
			updated_at: iso(),
			instruction: extra.instruction ?? null,
			reject_reason: null,
			label: null,
			status_updated_at: iso(),
			auto_delete_on: null,
			summary: null,
		};
		this.db.scans.push(scan);
		this.syncScanRef(scan);
		this.changed();
		return scan;
	}

	setScanStatus(scan, status, extra = {}) {
		scan.status = status;
		scan.updated_at = scan.status_updated_at = iso();
		if (extra.label !== undefined) scan.label = extra.label;
		if (extra.summary !== undefined) scan.summary = extra.summary;
		if (status === 'COMPLETED') scan.auto_delete_on = iso(Date.now() + 120 * 86_400_000);
		this.syncScanRef(scan);
		this.changed();
	}

	syncScanRef(scan) {
		const mail = this.db.mails.find((m) => m.id === scan.mail_id);
		if (mail)
			mail.scan = { uuid: scan.id, status: scan.status, category: scan.type, label: scan.label };
	}
}
