// Webhook deliveries signed independently of the package (node:crypto), as the spec describes.
import crypto from 'node:crypto';

export const SECRET = 'whsec_current_0123456789';
export const PREVIOUS = 'whsec_previous_9876543210';

export function sign(body, { secret = SECRET, timestamp = Date.now(), service = 'USGM' } = {}) {
	const raw = Buffer.isBuffer(body)
		? body
		: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
	const signature = crypto
		.createHmac('sha256', secret)
		.update(`${timestamp}.`)
		.update(raw)
		.digest('hex');
	return {
		raw,
		headers: {
			'content-type': 'application/json',
			[`${service.toLowerCase()}-webhook-signature`]: signature,
			[`${service.toLowerCase()}-webhook-timestamp`]: String(timestamp),
		},
	};
}

/** A request object as n8n's webhook server hands it to the node. */
export function request(body, options) {
	const { raw, headers } = sign(body, options);
	return { headers, rawBody: raw, body: safeParse(raw) };
}

function safeParse(raw) {
	try {
		return JSON.parse(raw.toString());
	} catch {
		return {};
	}
}

/** One payload per spec payload table, schema-valid. */
export const payloads = {
	'new-mail': {
		id: 1001,
		mail_type: 'LETTER',
		mail_status: 'INBOX',
		weight: '0.10',
		measurement: { width: '9.50', height: '4.10', length: '0.20' },
		recipient_name: 'Ada Lovelace',
		sender_name: 'City Utilities',
		image_url: 'https://files.vmb.test/envelopes/1001.jpg?sig=abc',
		message: 'New mail from City Utilities',
	},
	'scan-update': {
		id: 1001,
		uuid: '5ca00000-0000-4000-8000-000000000001',
		mail_type: 'LETTER',
		current_status: 'COMPLETED',
		scan_result_url: 'https://files.vmb.test/scans/5ca0.pdf?sig=abc',
		ai_label: 'Electric bill',
		ai_summary: 'Due 12 Dec',
		recipient_name: 'Ada Lovelace',
		sender_name: 'City Utilities',
		message: 'Scan completed',
	},
	'open-update': {
		id: 1002,
		uuid: '0be00000-0000-4000-8000-000000000002',
		mail_type: 'PACKAGE',
		current_status: 'COMPLETED',
		open_result_url: 'https://files.vmb.test/opens/0be0.pdf?sig=abc',
		recipient_name: 'Ada Lovelace',
		sender_name: 'Shop',
		message: 'Open request completed',
	},
	'shipment-update': {
		id: '54100000-0000-4000-8000-000000000003',
		status: 'PROCESSED',
		service: 'UPS Ground',
		tracking_data: '1Z999',
		auto_forward: 'false',
		destination_address: {
			name: 'Ada',
			address_line: '1 Main St',
			address_line_2: '',
			address_line_3: '',
			city: 'Springfield',
			state: 'IL',
			postal_code: '62701',
			country: 'US',
			address_type: 'shipping',
			tax_id: '',
			phone_number: '+15555550100',
		},
		message: 'Shipment processed',
	},
};
