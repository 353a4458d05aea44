// /_control endpoints (no auth; loopback only) for tests and `npm run dev`: reset, inspect,
// inject faults, and make the mailroom act (mail arrives, a scan moves on, a shipment ships), each
// notifying the webhook subscriptions as the service would.
import { queryMails } from '../mail-query.mjs';
import { fail } from '../problems.mjs';
import { TYPE_LABELS } from '../data.mjs';
import { iso } from '../mailbox.mjs';
import { scanEvent } from '../webhooks.mjs';

/** The REST mail types (spec, GET /v1/mails mail_type), as the mailroom logs them. */
export const MAIL_TYPES = Object.keys(TYPE_LABELS);

export default function controlRoutes(
	ctl,
	{ mailbox, webhooks, requests, faults, quirks, reset, info },
) {
	ctl('POST', '/reset', ({ body }) => {
		reset(body);
		return { mails: mailbox.db.mails.length };
	});
	ctl('GET', '/info', () => info());
	ctl('GET', '/requests', () => requests);
	ctl('DELETE', '/requests', () => {
		requests.length = 0;
		return {};
	});
	ctl('GET', '/query', ({ params }) => queryMails(mailbox.db.mails, params).map((m) => m.id));
	ctl('GET', '/state', () => ({
		mails: mailbox.db.mails.map((m) => mailbox.mailEntry(m)),
		scans: mailbox.db.scans.map((s) => mailbox.scanOut(s)),
		folders: mailbox.db.folders,
		shipments: mailbox.db.shipments,
	}));
	ctl('POST', '/faults', ({ body }) => {
		faults.push({
			path: body.path ?? '',
			query: body.query,
			cursor: Boolean(body.cursor),
			method: body.method,
			status: body.status ?? 500,
			count: body.count ?? 1,
			retryAfter: body.retryAfter,
			delayMs: body.delayMs ?? 0,
		});
		return { faults: faults.length };
	});
	ctl('DELETE', '/faults', () => {
		faults.length = 0;
		return {};
	});
	// Quirks (quirks.mjs): a rule `{kind, method, path, count, ...}` or `{mix: {seed, rate, kinds}}`.
	ctl('POST', '/quirks', ({ body }) => {
		if (body.mix) quirks.mix(body.mix);
		else quirks.add(body);
		return { rules: quirks.rules.length, mixed: Boolean(quirks.mixed) };
	});
	ctl('GET', '/quirks', () => ({ rules: quirks.rules, applied: quirks.applied }));
	ctl('DELETE', '/quirks', () => {
		quirks.clear();
		return {};
	});
	ctl('POST', '/mail', async ({ body }) => {
		if (body.mail_type !== undefined && !MAIL_TYPES.includes(body.mail_type))
			throw fail(422, `mail_type must be one of ${MAIL_TYPES.join(', ')}`, [
				{ field: 'mail_type', message: `one of ${MAIL_TYPES.join(', ')}` },
			]);
		for (const field of ['sender_name', 'recipient_name'])
			if (body[field] === '') delete body[field];
		const mail = mailbox.addMail(body);
		return { mail: mailbox.mailEntry(mail), deliveries: await webhooks.notify('new-mail', mail) };
	});
	ctl('POST', '/mails/{id}/scan', ({ id, body }) =>
		mailbox.scanOut(
			mailbox.createScan(
				mailbox.mailById(id),
				body.type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST',
				body,
			),
		),
	);
	ctl('POST', '/scans/{id}/status', async ({ id, body }) => {
		const scan = mailbox.scanById(id);
		mailbox.setScanStatus(scan, body.status ?? 'COMPLETED', body);
		return {
			scan: mailbox.scanOut(scan),
			deliveries: await webhooks.notify(scanEvent(scan), scan),
		};
	});
	// The mailroom page (GET /mailroom): the newest of each list, the subscriptions and the deliveries sent.
	ctl('GET', '/mailroom', () => {
		const db = mailbox.db;
		const newest = (list, key) =>
			[...list].sort((a, b) => String(b[key]).localeCompare(String(a[key]))).slice(0, 25);
		return {
			mails: db.mails.slice(0, 25).map((m) => mailbox.mailEntry(m)),
			scans: newest(db.scans, 'updated_at').map((s) => mailbox.scanOut(s)),
			shipments: newest(db.shipments, 'created_on'),
			folders: db.folders,
			subscriptions: webhooks.subscriptions,
			deliveries: webhooks.deliveries.slice(-25).reverse(),
			mailTypes: MAIL_TYPES,
		};
	});
	ctl('POST', '/mails/{id}/discard', ({ id }) => {
		const mail = mailbox.mailById(id);
		mail.previous_status = mail.mail_status;
		mail.mail_status = 'discard_request';
		mailbox.changed();
		return { mail: mailbox.mailEntry(mail) };
	});
	/** A shipment of one mail item to the default shipping address, in progress (shipment-update sent). */
	ctl('POST', '/mails/{id}/ship', async ({ id }) => {
		const mail = mailbox.mailById(id);
		const address =
			mailbox.db.addresses.find((a) => a.type === 'shipping' && a.is_default) ??
			mailbox.db.addresses[0];
		const shipment = {
			id: mailbox.newUuid(),
			type: 'shipment',
			status: 'in_progress',
			item_count: 1,
			created_on: iso(),
			is_expedited: false,
			is_insured: false,
			declared_value: 0,
			mail_items: [
				{
					id: mail.id,
					mail_type: mail.mail_type,
					sender_name: mail.sender_name,
					arrival_date: mail.arrival_date,
					envelope_image_url: mail.envelope_image_url,
				},
			],
			tracking_number: null,
			service_name: null,
			destination: address
				? {
						name: address.name,
						line1: address.line1,
						line2: address.line2,
						city: address.city,
						state: address.state,
						postal_code: address.postal_code,
						country: address.country,
					}
				: null,
			requested_ship_date: null,
			deposit_check_slip_company_name: null,
			instructions: null,
			insured_amount: null,
			reject_reason: null,
		};
		mailbox.db.shipments.unshift(shipment);
		mailbox.changed();
		return { shipment, deliveries: await webhooks.notify('shipment-update', shipment) };
	});
	ctl('POST', '/shipments/{id}/status', async ({ id, body }) => {
		const shipment = mailbox.find(mailbox.db.shipments, id, 'shipment');
		shipment.status = body.status ?? 'shipped';
		if (shipment.status === 'shipped' && !shipment.tracking_number) {
			shipment.tracking_number = `1Z${String(Date.now()).slice(-16).padStart(16, '0')}`;
			shipment.service_name = 'UPS Ground';
		}
		return { shipment, deliveries: await webhooks.notify('shipment-update', shipment) };
	});
}
