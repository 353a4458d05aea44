// /_control endpoints of the webhook sender: subscriptions (made in the service's dashboard, not
// its API), the deliveries sent so far, and crafted deliveries for the trigger's tests.
import { fail } from '../problems.mjs';
import { EVENTS, scanEvent } from '../webhooks.mjs';

export default function webhookRoutes(ctl, { mailbox, webhooks }) {
	ctl('POST', '/webhooks', ({ body }) => {
		if (!EVENTS.includes(body.event)) throw fail(422, 'unknown event');
		webhooks.subscribe(body.event, body.url);
		return webhooks.subscriptions;
	});
	/** Replace the subscriptions of one URL: {url, events: [...], origin?} (events [] unsubscribes it). */
	ctl('PUT', '/webhooks', ({ body }) => {
		const events = body.events ?? [];
		if (
			typeof body.url !== 'string' ||
			!Array.isArray(events) ||
			events.some((e) => !EVENTS.includes(e))
		)
			throw fail(
				422,
				'url and events (new-mail, scan-update, open-update, shipment-update) are required',
			);
		webhooks.follow(body.url, events, body.origin, body.name);
		return webhooks.subscriptions;
	});
	/** Name the workflow behind one URL's subscriptions: {url, name}. */
	ctl('PATCH', '/webhooks', ({ body }) => {
		if (typeof body.url !== 'string' || typeof body.name !== 'string')
			throw fail(422, 'url and name are required');
		webhooks.name(body.url, body.name);
		return webhooks.subscriptions;
	});
	ctl('GET', '/webhooks', () => webhooks.subscriptions);
	ctl('DELETE', '/webhooks', () => {
		webhooks.subscriptions.length = 0;
		return {};
	});
	ctl('GET', '/deliveries', () => webhooks.deliveries);
	/** A crafted delivery of an existing resource: variant valid|forged|tampered|stale|future|unsigned. */
	ctl('POST', '/deliver', async ({ body }) => {
		const event = body.event;
		const db = mailbox.db;
		const subject =
			event === 'new-mail'
				? mailbox.mailById(body.id ?? db.mails[0].id)
				: event === 'shipment-update'
					? mailbox.find(db.shipments, body.id ?? db.shipments[0].id, 'shipment')
					: mailbox.scanById(body.id ?? db.scans.find((s) => scanEvent(s) === event)?.id);
		const payload = { ...webhooks.payload(event, subject), ...(body.override ?? {}) };
		return {
			payload,
			deliveries: await webhooks.send(event, payload, {
				variant: body.variant,
				url: body.url,
				timestamp: body.timestamp,
			}),
		};
	});
}
