// /_control endpoints (no auth; loopback only) for tests and `npm run dev`: reset, inspect,
// inject faults, and make the mailroom act (mail arrives, a scan moves on, a shipment ships), each
// notifying the webhook subscriptions as the service would.
import { queryMails } from '../mail-query.mjs';
import { scanEvent } from '../webhooks.mjs';

export default function controlRoutes(ctl, { mailbox, webhooks, requests, faults, reset, info }) {
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
	ctl('GET', '/state', () => ({ mails: mailbox.db.mails.map((m) => mailbox.mailEntry(m)), scans: mailbox.db.scans.map((s) => mailbox.scanOut(s)), folders: mailbox.db.folders, shipments: mailbox.db.shipments }));
	ctl('POST', '/faults', ({ body }) => {
		faults.push({ path: body.path ?? '', query: body.query, cursor: Boolean(body.cursor), method: body.method, status: body.status ?? 500, count: body.count ?? 1, retryAfter: body.retryAfter, delayMs: body.delayMs ?? 0 });
		return { faults: faults.length };
	});
	ctl('DELETE', '/faults', () => {
		faults.length = 0;
		return {};
	});
	ctl('POST', '/mail', async ({ body }) => {
		const mail = mailbox.addMail(body);
		return { mail: mailbox.mailEntry(mail), deliveries: await webhooks.notify('new-mail', mail) };
	});
	ctl('POST', '/mails/{id}/scan', ({ id, body }) => mailbox.scanOut(mailbox.createScan(mailbox.mailById(id), body.type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST', body)));
	ctl('POST', '/scans/{id}/status', async ({ id, body }) => {
		const scan = mailbox.scanById(id);
		mailbox.setScanStatus(scan, body.status ?? 'COMPLETED', body);
		return { scan: mailbox.scanOut(scan), deliveries: await webhooks.notify(scanEvent(scan), scan) };
	});
	ctl('POST', '/shipments/{id}/status', async ({ id, body }) => {
		const shipment = mailbox.find(mailbox.db.shipments, id, 'shipment');
		shipment.status = body.status ?? 'shipped';
		return { shipment, deliveries: await webhooks.notify('shipment-update', shipment) };
	});
}
