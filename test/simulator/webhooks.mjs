// The service's webhook sender (docs/api.md, "Webhooks"): subscriptions, payloads in their own
// names and upper-case values, signed deliveries sent once with no retry, and crafted variants
// (forged, tampered, stale, future, unsigned) for the trigger's tests.
import crypto from 'node:crypto';
import { mailTypeToken, TYPE_LABELS } from './data.mjs';
import { iso } from './mailbox.mjs';

/** A REST shipment status as the provider's payloads write it: its internal states (the support article's sample: PROCESSED) for in_progress. */
const payloadShipmentStatus = (status) =>
	status === 'in_progress' ? 'PROCESSED' : status.toUpperCase();

export const scanEvent = (scan) =>
	scan.type === 'UNBOXING_REQUEST' ? 'open-update' : 'scan-update';

export class WebhookSender {
	constructor(mailbox, secret) {
		this.mailbox = mailbox;
		this.secret = secret;
		this.subscriptions = [];
		this.deliveries = [];
	}

	subscribe(event, url, origin, name) {
		if (!this.subscriptions.some((w) => w.event === event && w.url === url))
			this.subscriptions.push({
				event,
				url,
				...(origin ? { origin } : {}),
				...(name ? { name } : {}),
			});
	}

	/** The subscriptions of `url` become one per event of `events` (none: the URL is unsubscribed); `name`: the workflow's, where known. */
	follow(url, events, origin, name) {
		for (let i = this.subscriptions.length - 1; i >= 0; i--)
			if (this.subscriptions[i].url === url) this.subscriptions.splice(i, 1);
		for (const event of events) this.subscribe(event, url, origin, name);
	}

	/** Name the workflow behind the subscriptions of `url` (learnt after they were made). */
	name(url, name) {
		for (const subscription of this.subscriptions)
			if (subscription.url === url) subscription.name = name;
	}

	sign(raw, { secret = this.secret, timestamp = Date.now() } = {}) {
		return {
			'content-type': 'application/json',
			'USGM-Webhook-Signature': crypto
				.createHmac('sha256', secret)
				.update(`${timestamp}.`)
				.update(raw)
				.digest('hex'),
			'USGM-Webhook-Timestamp': String(timestamp),
		};
	}

	/** POST one delivery, once, no retry; record the outcome. */
	async post(event, url, raw, headers, variant) {
		const record = { event, url, variant, status: null, error: null, at: iso() };
		try {
			const response = await fetch(url, {
				method: 'POST',
				headers,
				body: raw,
				signal: AbortSignal.timeout(10_000),
			});
			record.status = response.status;
			// What the receiver answered, for the mailroom page (n8n: {"received":true,"ignored":…} or an error text).
			record.answer = (await response.text()).slice(0, 300);
		} catch (error) {
			record.error = error.message;
		}
		record.said = answerInWords(record);
		const subscription = this.subscriptions.find((w) => w.url === url && w.name);
		if (subscription) record.name = subscription.name;
		this.deliveries.push(record);
		return record;
	}

	/** Send `payload` to `url`, or to every subscription of `event`. */
	async send(event, payload, { variant = 'valid', url, timestamp } = {}) {
		const targets = url
			? [url]
			: this.subscriptions.filter((w) => w.event === event).map((w) => w.url);
		const raw = Buffer.from(JSON.stringify(payload));
		const results = [];
		for (const target of targets) {
			let body = raw;
			let headers;
			if (variant === 'forged')
				headers = this.sign(raw, { secret: 'whsec_forged_by_someone_else' });
			else if (variant === 'stale')
				headers = this.sign(raw, { timestamp: Date.now() - 60 * 60_000 });
			else if (variant === 'future')
				headers = this.sign(raw, { timestamp: Date.now() + 60 * 60_000 });
			else if (variant === 'unsigned') headers = { 'content-type': 'application/json' };
			else if (variant === 'tampered') {
				headers = this.sign(raw);
				body = Buffer.from(JSON.stringify({ ...payload, sender_name: 'Mallory' }));
			} else headers = this.sign(raw, { timestamp });
			results.push(await this.post(event, target, body, headers, variant));
		}
		return results;
	}

	/** The payload of `event` for a record (mail item, scan or shipment). */
	payload(event, record) {
		const mailbox = this.mailbox;
		if (event === 'new-mail') {
			const m = record;
			return {
				id: Number(m.id),
				mail_type: mailTypeToken(m.mail_type),
				mail_status: m.mail_status.toUpperCase(),
				weight: m.weight.toFixed(2),
				measurement: Object.fromEntries(
					Object.entries(m.measurement).map(([k, v]) => [k, v.toFixed(2)]),
				),
				recipient_name: m.recipient_name,
				sender_name: m.sender_name,
				image_url: mailbox.signedUrl(`/files/envelopes/${m.id}.jpg`),
				message: `New ${TYPE_LABELS[m.mail_type].toLowerCase()} from ${m.sender_name}`,
			};
		}
		if (event === 'scan-update') {
			const s = record;
			const m = mailbox.mailById(s.mail_id);
			return {
				id: Number(m.id),
				uuid: s.id,
				mail_type: mailTypeToken(m.mail_type),
				current_status: s.status,
				scan_result_url: mailbox.signedUrl(`/files/scans/${s.id}.pdf`),
				...(s.label ? { ai_label: s.label } : {}),
				...(s.summary ? { ai_summary: s.summary.join('\n') } : {}),
				recipient_name: m.recipient_name,
				sender_name: m.sender_name,
				message: `Scan ${s.status.toLowerCase()}`,
			};
		}
		if (event === 'open-update') {
			const s = record;
			const m = mailbox.mailById(s.mail_id);
			return {
				id: Number(m.id),
				uuid: s.id,
				mail_type: mailTypeToken(m.mail_type),
				current_status: s.status,
				open_result_url: mailbox.signedUrl(`/files/opens/${s.id}.pdf`),
				recipient_name: m.recipient_name,
				sender_name: m.sender_name,
				message: `Open request ${s.status.toLowerCase()}`,
			};
		}
		if (event === 'shipment-update') {
			const sh = record;
			const d = sh.destination ?? {};
			return {
				id: sh.id,
				status: payloadShipmentStatus(sh.status),
				service: sh.service_name ?? '',
				tracking_data: sh.tracking_number ?? '',
				auto_forward: 'false',
				destination_address: {
					name: d.name ?? '',
					address_line: d.line1 ?? '',
					address_line_2: d.line2 ?? '',
					address_line_3: '',
					city: d.city ?? '',
					state: d.state ?? '',
					postal_code: d.postal_code ?? '',
					country: d.country ?? '',
					address_type: d.address_type ?? 'residential',
					tax_id: '',
					phone_number: '',
				},
				message: `Shipment ${sh.status}`,
			};
		}
		return undefined;
	}

	/** Send the payload of `event` for `record` to its subscriptions. */
	async notify(event, record) {
		return await this.send(event, this.payload(event, record));
	}
}

export const EVENTS = ['new-mail', 'scan-update', 'open-update', 'shipment-update'];

/**
 * Pure: what the receiver (n8n) answered a delivery, in words, for the mailroom page: `status`,
 * `answer` (its body) and `error` (no answer) of a delivery record. n8n answers a delivery that
 * started a run with the literal text `firstEntryJson` (its default response data, for a webhook
 * answered on receipt) or {"message":"Workflow was started"}; the trigger answers one it ignores
 * with {"received":true,"ignored":reason}.
 */
export function answerInWords({ status, answer, error }) {
	if (error || !status) return `no answer: ${error ?? 'unknown error'}`;
	let body;
	try {
		body = JSON.parse(answer);
	} catch {
		body = answer;
	}
	if (status >= 200 && status < 300) {
		if (body?.ignored) return `received, not run: ${body.ignored}`;
		return 'received: the workflow runs';
	}
	const text = typeof body === 'object' && body ? (body.message ?? JSON.stringify(body)) : body;
	if (status === 404) return `not listening: ${text || 'no webhook at this URL'}`;
	if (status === 401 || status === 403) return `refused: ${text || status}`;
	return `failed (${status}): ${text || 'no text'}`;
}
