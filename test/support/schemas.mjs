// zod schemas of the API's resources and operations, transcribed from the provider's TypeScript SDK
// (`USGM/usgm-typescript-sdk` 1.0.4: response types in src/api/types/, request types in
// src/api/resources/<resource>/client/requests/) and the spec: a field the SDK declares `x: T` is
// required, `x?: T | null` is `nullable()` (optional and nullable), and answers are strict (a field
// the SDK does not declare fails). Fixtures, every simulator answer and every request a node sends
// are checked with these (test/support/conformance.mjs), so none of them can drift from the SDK.
// Stricter than the SDK's types, which say only `string`, following the SDK's own field comments:
// scan `type` and `status` and the mail's scan `status` and `category` (SCAN_TYPE, SCAN_STATUS: the
// values the comments list); ids the comments call numeric strings (mail, folder: digits) or UUIDs;
// dates (ISO 8601 with offset); a folder's `color` (`#RRGGBB`, "Hex color like `#4BB94B`"); a bank
// account's `account_number_last4` (4 characters). Everywhere else a `string` is any string.
import { z } from 'zod';

const datetime = z.string().datetime({ offset: true });
const nullable = (schema) => schema.nullable().optional();
const numericString = z.string().regex(/^\d+$/);
const uuid = z.string().uuid();
export const SCAN_STATUS = z.enum([
	'IN_PROCESS',
	'COMPLETED',
	'CANCELLED',
	'REJECTED',
	'DELETED',
	'RESTORING',
]);
export const SCAN_TYPE = z.enum(['SCAN_REQUEST', 'UNBOXING_REQUEST']);

export const Scan = z.object({
	id: uuid,
	mail_id: numericString,
	type: SCAN_TYPE,
	status: SCAN_STATUS,
	is_expedited: z.boolean(),
	created_at: datetime,
	updated_at: datetime,
	instruction: nullable(z.string()),
	reject_reason: nullable(z.string()),
	label: nullable(z.string()),
	status_updated_at: nullable(datetime),
	auto_delete_on: nullable(datetime),
});

export const ScanReference = z.object({
	uuid,
	status: SCAN_STATUS,
	category: SCAN_TYPE,
	label: nullable(z.string()),
});
export const ScanSummary = z.object({
	label: z.string().nullable(),
	summary: z.array(z.string()).nullable(),
});

export const MailItem = z.object({
	id: numericString,
	is_read: z.boolean(),
	mail_status: z.string(),
	mail_type: z.string(),
	folder_id: nullable(z.string()),
	sender_name: nullable(z.string()),
	recipient_name: nullable(z.string()),
	arrival_date: nullable(datetime),
	envelope_image_url: nullable(z.string()),
	quarantine_reason: nullable(z.string()),
	scan: nullable(ScanReference),
});

export const MailItemDetail = MailItem.omit({ folder_id: true }).extend({
	mail_type_label: z.string(),
	measurement: z.object({ width: z.number(), height: z.number(), length: z.number() }),
	weight: z.number(),
	has_storage_charges: z.boolean(),
	tracking_number: nullable(z.string()),
	sender_address: nullable(z.string()),
	folder: nullable(z.object({ id: z.string(), name: z.string(), color: nullable(z.string()) })),
});

const destination = z.strictObject(
	Object.fromEntries(
		['name', 'line1', 'line2', 'city', 'state', 'postal_code', 'country'].map((k) => [
			k,
			nullable(z.string()),
		]),
	),
);

/** ShipmentDetailDto (GET /v1/shipments/{id}). */
export const Shipment = z.object({
	id: uuid,
	type: z.enum(['shipment', 'return_to_sender', 'check_deposit', 'pickup']),
	status: z.enum(['shipped', 'in_progress', 'payment_failed', 'rejected']),
	item_count: z.number().int(),
	created_on: datetime,
	is_expedited: z.boolean(),
	is_insured: z.boolean(),
	declared_value: z.number(),
	mail_items: z.array(
		z.object({
			id: numericString,
			mail_type: z.string(),
			sender_name: nullable(z.string()),
			arrival_date: nullable(datetime),
			envelope_image_url: nullable(z.string()),
		}),
	),
	tracking_number: nullable(z.string()),
	service_name: nullable(z.string()),
	destination: nullable(destination),
	requested_ship_date: nullable(datetime),
	deposit_check_slip_company_name: nullable(z.string()),
	instructions: nullable(z.string()),
	insured_amount: nullable(z.number()),
	reject_reason: nullable(z.string()),
});

/** ShipmentPageDto.Data.Item: the list item lacks the packed items, insurance, value, instructions and reject reason. */
export const ShipmentListItem = Shipment.pick({
	id: true,
	type: true,
	status: true,
	tracking_number: true,
	service_name: true,
	destination: true,
	item_count: true,
	requested_ship_date: true,
	created_on: true,
	deposit_check_slip_company_name: true,
});

export const Address = z.object({
	id: uuid,
	type: z.enum(['shipping', 'deposit']),
	is_default: z.boolean(),
	...Object.fromEntries(
		[
			'name',
			'line1',
			'line2',
			'line3',
			'city',
			'state',
			'postal_code',
			'country',
			'phone_number',
			'tax_id',
		].map((k) => [k, nullable(z.string())]),
	),
});

export const BankAccount = z
	.object({
		id: uuid,
		bank_name: z.string(),
		bank_state: z.string(),
		account_number_last4: z.string().length(4),
	})
	.strict(); // account_number is write-only: a response holding it fails here

export const Folder = z.object({
	id: numericString,
	name: z.string(),
	created_on: datetime,
	updated_on: datetime,
	color: nullable(z.string().regex(/^#[0-9A-Fa-f]{6}$/)),
});

export const Account = z.object({
	id: uuid,
	name: z.string(),
	email: z.string(),
	created_at: datetime,
	phone_number: nullable(z.string()),
	status: nullable(z.string()),
	box_number: nullable(z.string()),
});

export const MailingAddress = z.object({
	box_number: z.string(),
	formatted: z.string(),
	...Object.fromEntries(
		['line1', 'line2', 'line3', 'city', 'state', 'postal_code', 'country'].map((k) => [
			k,
			nullable(z.string()),
		]),
	),
});

export const FolderList = z.object({ data: z.array(Folder) });
export const ScanFile = z.object({ url: z.string(), expires_at: datetime });
export const SeedResult = z.object({ mail_ids: z.array(numericString) });
export const SeedMailResult = z.object({ mail_id: numericString });

export const page = (item) =>
	z.object({
		data: z.array(item),
		next_cursor: z.string().nullable(),
		total_count: z.number().int().min(0),
	});

export const Problem = z.object({
	type: z.string(),
	title: z.string(),
	status: z.number().int(),
	code: z.string(),
	request_id: z.string(),
	detail: z.string().optional(),
	instance: z.string().optional(),
	errors: z
		.array(z.object({ field: z.string(), message: z.string(), code: z.string().optional() }))
		.optional(),
});

// Webhook payloads (spec "Payloads"); upper-case enums, text numbers.
export const NewMailEvent = z.object({
	id: z.number().int(),
	mail_type: z.string(),
	mail_status: z.string(),
	weight: z.string(),
	measurement: z.object({ width: z.string(), height: z.string(), length: z.string() }),
	recipient_name: z.string(),
	sender_name: z.string(),
	image_url: z.string(),
	message: z.string(),
});
export const ScanUpdateEvent = z.object({
	id: z.number().int(),
	uuid: z.string(),
	mail_type: z.string(),
	current_status: z.string(),
	scan_result_url: z.string(),
	ai_label: z.string().optional(),
	ai_summary: z.string().optional(),
	recipient_name: z.string(),
	sender_name: z.string(),
	message: z.string(),
});
export const OpenUpdateEvent = z.object({
	id: z.number().int(),
	uuid: z.string(),
	mail_type: z.string(),
	current_status: z.string(),
	open_result_url: z.string(),
	recipient_name: z.string(),
	sender_name: z.string(),
	message: z.string(),
});
export const ShipmentUpdateEvent = z.object({
	id: z.string(),
	status: z.string(),
	service: z.string(),
	tracking_data: z.string(),
	auto_forward: z.string(),
	destination_address: z.object(
		Object.fromEntries(
			[
				'name',
				'address_line',
				'address_line_2',
				'address_line_3',
				'city',
				'state',
				'postal_code',
				'country',
				'address_type',
				'tax_id',
				'phone_number',
			].map((k) => [k, z.string()]),
		),
	),
	message: z.string(),
});

// ---- Operations: each endpoint's request and answer, as the SDK's clients declare them ----
// `query`: every query parameter the SDK's request type has (name → schema of one value);
// `lists`: those it sends as a repeated key (`status=a&status=b`, no brackets, no commas);
// `body`: the JSON body (undefined: the SDK sends none); `answer`: the 2xx answer's schema (null:
// no content). The simulator cannot register a route without an entry here, and the node's
// operations each name the entries they use (test/unit/simulator/conformance.test.mjs).
const text = z.string().min(1);
const positiveInt = z.string().regex(/^[1-9]\d*$/);
const oneOf = (...values) => z.enum(values);
const pageQuery = { limit: positiveInt, cursor: text };
const period = oneOf('week', 'month', 'half_year', 'year');
const sort = oneOf('newest', 'oldest');
const addressType = oneOf('shipping', 'deposit');
const addressFields = {
	type: addressType,
	name: z.string(),
	line1: z.string(),
	line2: z.string(),
	line3: z.string(),
	city: z.string(),
	state: z.string(),
	postal_code: z.string(),
	country: z.string(),
	phone_number: z.string(),
	tax_id: z.string(),
};
const CreateAddress = z.object(addressFields).partial({ line2: true, line3: true, tax_id: true });
const bankFields = { bank_name: z.string(), bank_state: z.string(), account_number: z.string() };
const measurement = z.object({ width: z.number(), height: z.number(), length: z.number() });
export const SEED_MAIL_TYPES = [
	'LETTER',
	'LARGELETTER',
	'MAGAZINE',
	'CATALOG',
	'SOFTPAK',
	'PACKAGE',
];

export const OPERATIONS = {
	'GET /v1/account': { answer: Account },
	'GET /v1/account/mailing-address': { answer: MailingAddress },
	'GET /v1/mails': {
		query: {
			...pageQuery,
			status: oneOf('inbox', 'archived', 'quarantine', 'discard_request'),
			mail_type: oneOf(
				'letter',
				'large_letter',
				'magazine',
				'package',
				'softpak',
				'catalog',
				'distribution',
				'fulfillment',
				'inventory',
			),
			folder_id: z.string().regex(/^\d+$/),
			search: z.string(),
			scan_status: oneOf(
				'in_process',
				'cancelled',
				'rejected',
				'completed',
				'deleted',
				'restoring',
				'none',
			),
			sort,
			arrived: period,
			is_read: oneOf('true', 'false'),
		},
		lists: ['status', 'mail_type', 'scan_status'],
		answer: page(MailItem),
	},
	'GET /v1/mails/{id}': { answer: MailItemDetail },
	'PATCH /v1/mails/{id}': {
		body: z.object({ is_read: z.boolean(), folder_id: z.string().nullable() }).partial(),
		answer: MailItemDetail,
	},
	'POST /v1/mails/{id}/archive': { answer: MailItemDetail },
	'POST /v1/mails/{id}/unarchive': { answer: MailItemDetail },
	'POST /v1/mails/{id}/discard': { answer: MailItemDetail },
	'POST /v1/mails/{id}/undiscard': { answer: MailItemDetail },
	'GET /v1/scans': {
		query: {
			...pageQuery,
			status: oneOf('in_process', 'cancelled', 'rejected', 'completed', 'deleted', 'restoring'),
			type: oneOf('scan', 'open'),
			mail_id: z.string(),
			search: z.string(),
			sort,
			scanned: period,
		},
		lists: ['status', 'type'],
		answer: page(Scan),
	},
	'POST /v1/scans': {
		body: z.object({
			mail_id: z.string(),
			type: oneOf('scan', 'open'),
			instruction: z.string().optional(),
			is_expedited: z.boolean().optional(),
		}),
		answer: Scan,
	},
	'GET /v1/scans/{id}': { answer: Scan },
	'DELETE /v1/scans/{id}': { answer: Scan },
	'GET /v1/scans/{id}/file': { answer: ScanFile },
	'GET /v1/scans/{id}/summary': { answer: ScanSummary },
	'POST /v1/scans/{id}/cancel': { answer: Scan },
	'GET /v1/shipments': {
		query: {
			...pageQuery,
			type: oneOf('shipment', 'return_to_sender', 'check_deposit', 'pickup'),
			status: oneOf('shipped', 'in_progress', 'payment_failed', 'rejected'),
		},
		lists: ['type', 'status'],
		answer: page(ShipmentListItem),
	},
	'GET /v1/shipments/{id}': { answer: Shipment },
	'GET /v1/folders': { answer: FolderList },
	'POST /v1/folders': {
		body: z.object({ name: z.string(), color: z.string().optional() }),
		answer: Folder,
	},
	'GET /v1/folders/{id}': { answer: Folder },
	'PATCH /v1/folders/{id}': {
		body: z.object({ name: z.string(), color: z.string() }).partial(),
		answer: Folder,
	},
	'DELETE /v1/folders/{id}': { answer: null },
	'GET /v1/addresses': { query: { ...pageQuery, type: addressType }, answer: page(Address) },
	'POST /v1/addresses': { body: CreateAddress, answer: Address },
	'GET /v1/addresses/default': {
		query: { type: addressType },
		required: ['type'],
		answer: Address,
	},
	'GET /v1/addresses/{id}': { answer: Address },
	'PATCH /v1/addresses/{id}': { body: z.object(addressFields).partial(), answer: Address },
	'PATCH /v1/addresses/{id}/default': { answer: Address },
	'DELETE /v1/addresses/{id}': { answer: null },
	'GET /v1/bank-accounts': { query: pageQuery, answer: page(BankAccount) },
	'POST /v1/bank-accounts': { body: z.object(bankFields), answer: BankAccount },
	'GET /v1/bank-accounts/{id}': { answer: BankAccount },
	'PATCH /v1/bank-accounts/{id}': { body: z.object(bankFields).partial(), answer: BankAccount },
	'DELETE /v1/bank-accounts/{id}': { answer: null },
	'POST /v1/sandbox/seed': { answer: SeedResult },
	'POST /v1/sandbox/seed/mail': {
		body: z
			.object({
				sender_name: z.string(),
				mail_type: z.enum(SEED_MAIL_TYPES),
				weight: z.number(),
				measurement,
			})
			.partial(),
		answer: SeedMailResult,
	},
	'POST /v1/sandbox/scans/{id}/complete': {
		body: z.object({ label: z.string(), summary: z.array(z.string()) }).partial(),
		answer: Scan,
	},
};
