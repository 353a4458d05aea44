// Spec-shaped fixtures. Every builder parses its result with the zod schema of the spec.
import * as S from './schemas.mjs';

const at = (n) => new Date(Date.UTC(2026, 10, 1) - n * 3_600_000).toISOString();
const uuidOf = (n, prefix = '0') =>
	`${prefix.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const mail = (n, extra = {}) =>
	S.MailItem.parse({
		id: String(1000 + n),
		is_read: n % 2 === 0,
		mail_status: 'inbox',
		mail_type: 'letter',
		folder_id: null,
		sender_name: `Sender ${n}`,
		recipient_name: 'Ada Lovelace',
		arrival_date: at(n),
		envelope_image_url: `https://files.example/envelopes/${n}.jpg`,
		quarantine_reason: null,
		scan: null,
		...extra,
	});

export const mailDetail = (n, extra = {}) => {
	const { folder_id: _f, ...base } = mail(n);
	return S.MailItemDetail.parse({
		...base,
		mail_type_label: 'Letter',
		measurement: { width: 9.5, height: 4.1, length: 0.2 },
		weight: 0.1,
		has_storage_charges: false,
		tracking_number: null,
		sender_address: '1 Main St, Springfield',
		folder: null,
		...extra,
	});
};

export const scan = (n, extra = {}) =>
	S.Scan.parse({
		id: uuidOf(n, '5ca0'),
		mail_id: String(1000 + n),
		type: 'SCAN_REQUEST',
		status: 'IN_PROCESS',
		is_expedited: false,
		created_at: at(n),
		updated_at: at(n),
		instruction: null,
		reject_reason: null,
		label: null,
		status_updated_at: at(n),
		auto_delete_on: null,
		...extra,
	});

export const shipment = (n, extra = {}) =>
	S.Shipment.parse({
		id: uuidOf(n, '5410'),
		type: 'shipment',
		status: 'in_progress',
		item_count: 1,
		created_on: at(n),
		is_expedited: false,
		is_insured: false,
		declared_value: 0,
		mail_items: [{ id: String(1000 + n), mail_type: 'letter' }],
		tracking_number: null,
		destination: {
			name: 'Ada',
			line1: '1 Main St',
			city: 'Springfield',
			state: 'IL',
			postal_code: '62701',
			country: 'US',
		},
		...extra,
	});

export const folder = (n, extra = {}) =>
	S.Folder.parse({
		id: String(n),
		name: `Folder ${n}`,
		created_on: at(n),
		updated_on: at(n),
		color: '#1A73E8',
		...extra,
	});

export const address = (n, extra = {}) =>
	S.Address.parse({
		id: uuidOf(n, 'add0'),
		type: 'shipping',
		is_default: true,
		name: 'Ada Lovelace',
		line1: '1 Main St',
		city: 'Springfield',
		state: 'IL',
		postal_code: '62701',
		country: 'US',
		phone_number: '+15555550100',
		...extra,
	});

export const bankAccount = (n, extra = {}) =>
	S.BankAccount.parse({
		id: uuidOf(n, 'ba00'),
		bank_name: `Bank ${n}`,
		bank_state: 'NY',
		account_number_last4: '6789',
		...extra,
	});

export const account = () =>
	S.Account.parse({
		id: uuidOf(1, 'acc0'),
		name: 'Ada Lovelace',
		email: 'ada@example.com',
		created_at: at(1000),
		phone_number: null,
		status: 'APPROVED',
		box_number: '4242',
	});

export const mailingAddress = () =>
	S.MailingAddress.parse({
		box_number: '4242',
		formatted: '1 Facility Way PMB 4242, Sacramento, CA, 95814, US',
		line1: '1 Facility Way',
		city: 'Sacramento',
		state: 'CA',
		postal_code: '95814',
		country: 'US',
	});

export const problem = (status, extra = {}) =>
	S.Problem.parse({
		type: `https://errors.example/${status}`,
		title: {
			400: 'Bad request',
			401: 'Unauthorized',
			403: 'Forbidden',
			404: 'Not found',
			409: 'Conflict',
			422: 'Validation failed',
			429: 'Too many requests',
			500: 'Internal error',
		}[status],
		status,
		code: {
			400: 'bad_request',
			401: 'unauthorized',
			403: 'forbidden',
			404: 'not_found',
			409: 'conflict',
			422: 'validation_error',
			429: 'rate_limited',
			500: 'internal_error',
		}[status],
		request_id: `req_${status}_abc`,
		...extra,
	});

export const pageOf = (schema, data, next_cursor, total_count) =>
	S.page(schema).parse({ data, next_cursor, total_count });

/** Many mail items fast (no per-item parse); `shape(n)` overrides fields. The first one is schema-checked. */
export function bulkMail(count, shape = () => ({})) {
	const items = [];
	for (let n = 0; n < count; n++) {
		items.push({
			id: String(100000 + n),
			is_read: false,
			mail_status: 'inbox',
			mail_type: 'letter',
			folder_id: null,
			sender_name: `Sender ${n % 97}`,
			recipient_name: 'Ada Lovelace',
			arrival_date: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
			envelope_image_url: null,
			quarantine_reason: null,
			scan: null,
			...shape(n),
		});
	}
	if (items.length) S.MailItem.parse(items[0]);
	return items;
}
