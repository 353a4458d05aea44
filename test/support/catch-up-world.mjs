// A small mailbox for the webhook trigger's catch-up tests: mail and scans as the REST lists show
// them (GET /v1/mails newest first by arrival, GET /v1/scans filtered by status and type, newest
// created first, both paged by the simulator's cursor code), and each event's delivery payload as
// the service sends it. `serve(api)` answers the lists and GET /v1/account on a mockApi.
import { paginate } from '../simulator/paging.mjs';

const iso = (ms) => new Date(ms).toISOString();
const uuidOf = (n) => `5ca00000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export function catchUpWorld({
	start = Date.parse('2026-11-01T09:00:00Z'),
	accountId = 'acct_1',
} = {}) {
	let nextMail = 5000;
	let nextScan = 1;
	const world = {
		now: start,
		accountId,
		mails: [],
		scans: [],
		/** Requests served, by path. */
		served: { '/v1/mails': 0, '/v1/scans': 0, '/v1/account': 0 },
		/** Answer the next `failNext` list requests with `failStatus`. */
		failNext: 0,
		failStatus: 403,
		tick(ms = 60_000) {
			world.now += ms;
			return world.now;
		},
		/** A mail item arrives (`arrivedMsAgo`: logged late by the mailroom); returns its new-mail event. */
		addMail({ arrivedMsAgo = 0, sender = 'City Utilities' } = {}) {
			const id = String(nextMail++);
			const mail = {
				id,
				is_read: false,
				mail_status: 'inbox',
				mail_type: 'letter',
				folder_id: null,
				sender_name: sender,
				recipient_name: 'Ada Lovelace',
				arrival_date: iso(world.tick(1_000) - arrivedMsAgo),
				envelope_image_url: `https://files.vmb.test/envelopes/${id}.jpg`,
				quarantine_reason: null,
				scan: null,
			};
			world.mails.push(mail);
			return { event: 'new-mail', key: `new-mail:${id}`, record: mail, payload: mailPayload(mail) };
		},
		/** A scan (or open) request of a mail item, in process. */
		requestScan(mail, type = 'scan') {
			const scan = {
				id: uuidOf(nextScan++),
				mail_id: mail.id,
				type: type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST',
				status: 'IN_PROCESS',
				is_expedited: false,
				created_at: iso(world.tick(1_000)),
				updated_at: iso(world.now),
				status_updated_at: iso(world.now),
				label: null,
			};
			world.scans.push(scan);
			return scan;
		},
		/** A scan completes; returns its completion event. */
		complete(scan) {
			scan.status = 'COMPLETED';
			scan.status_updated_at = scan.updated_at = iso(world.tick(1_000));
			scan.label = 'Electric bill';
			const event = scan.type === 'UNBOXING_REQUEST' ? 'open-update' : 'scan-update';
			const mail = world.mails.find((m) => m.id === scan.mail_id);
			return {
				event,
				key: `${event}:${scan.id}|COMPLETED`,
				record: scan,
				payload: scanPayload(scan, mail, event),
			};
		},
		serve(api) {
			const answer = (path, list) => (request) => {
				world.served[path]++;
				if (world.failNext > 0) {
					world.failNext--;
					return {
						status: world.failStatus,
						body: { status: world.failStatus, title: 'Forbidden', code: 'forbidden' },
					};
				}
				return {
					body: paginate(
						path,
						new URLSearchParams(request.search),
						list(new URLSearchParams(request.search)),
					),
				};
			};
			api.on(
				'GET',
				'/v1/mails',
				answer('/v1/mails', () =>
					[...world.mails].sort(
						(a, b) =>
							Date.parse(b.arrival_date) - Date.parse(a.arrival_date) ||
							Number(b.id) - Number(a.id),
					),
				),
				{ persist: true },
			);
			api.on(
				'GET',
				'/v1/scans',
				answer('/v1/scans', (params) => {
					const statuses = params.getAll('status');
					const types = params
						.getAll('type')
						.map((t) => (t === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST'));
					return [...world.scans]
						.reverse()
						.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))
						.filter(
							(s) =>
								(!statuses.length || statuses.includes(s.status.toLowerCase())) &&
								(!types.length || types.includes(s.type)),
						);
				}),
				{ persist: true },
			);
			api.on(
				'GET',
				'/v1/account',
				() => {
					world.served['/v1/account']++;
					return { body: { id: world.accountId, email: 'ada@example.com', name: 'Ada Lovelace' } };
				},
				{ persist: true },
			);
			return api;
		},
	};
	return world;
}

function mailPayload(mail) {
	return {
		id: Number(mail.id),
		mail_type: 'LETTER',
		mail_status: 'INBOX',
		weight: '0.10',
		measurement: { width: '9.50', height: '4.10', length: '0.20' },
		recipient_name: mail.recipient_name,
		sender_name: mail.sender_name,
		image_url: `${mail.envelope_image_url}?sig=${Math.random().toString(36).slice(2)}`,
		message: `New mail from ${mail.sender_name}`,
	};
}

function scanPayload(scan, mail, event) {
	return {
		id: Number(scan.mail_id),
		uuid: scan.id,
		mail_type: 'LETTER',
		current_status: 'COMPLETED',
		...(event === 'open-update'
			? { open_result_url: `https://files.vmb.test/opens/${scan.id}.pdf?sig=x` }
			: {
					scan_result_url: `https://files.vmb.test/scans/${scan.id}.pdf?sig=x`,
					ai_label: scan.label,
				}),
		recipient_name: mail?.recipient_name ?? '',
		sender_name: mail?.sender_name ?? '',
		message: 'Scan completed',
	};
}

/** The event an item a trigger passed on stands for: the same key a delivery and its caught-up twin claim. */
export function eventKeyOf(item) {
	if (item.event === 'new-mail') return `new-mail:${item.id}`;
	return `${item.event}:${item.id}|${String(item.status).toUpperCase()}`;
}
