// zod schemas of the API's resources (docs/api.md, "Resources"). Fixtures and simulator responses are parsed with these, so neither can drift from the spec.
import { z } from 'zod';

const datetime = z.string().datetime({ offset: true });
const nullable = (schema) => schema.nullable().optional();
const numericString = z.string().regex(/^\d+$/);
const uuid = z.string().uuid();
export const SCAN_STATUS = z.enum(['IN_PROCESS', 'COMPLETED', 'CANCELLED', 'REJECTED', 'DELETED', 'RESTORING']);
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

export const ScanReference = z.object({ uuid, status: SCAN_STATUS, category: SCAN_TYPE, label: nullable(z.string()) });
export const ScanSummary = z.object({ label: z.string().nullable(), summary: z.array(z.string()).nullable() });

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

const destination = z.object(
	Object.fromEntries(['name', 'line1', 'line2', 'city', 'state', 'postal_code', 'country'].map((k) => [k, nullable(z.string())])),
);

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

export const Address = z.object({
	id: uuid,
	type: z.enum(['shipping', 'deposit']),
	is_default: z.boolean(),
	...Object.fromEntries(
		['name', 'line1', 'line2', 'line3', 'city', 'state', 'postal_code', 'country', 'phone_number', 'tax_id'].map((k) => [k, nullable(z.string())]),
	),
});

export const BankAccount = z
	.object({ id: uuid, bank_name: z.string(), bank_state: z.string(), account_number_last4: z.string().length(4) })
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
	...Object.fromEntries(['line1', 'line2', 'line3', 'city', 'state', 'postal_code', 'country'].map((k) => [k, nullable(z.string())])),
});

export const page = (item) => z.object({ data: z.array(item), next_cursor: z.string().nullable(), total_count: z.number().int().min(0) });

export const Problem = z.object({
	type: z.string(),
	title: z.string(),
	status: z.number().int(),
	code: z.string(),
	request_id: z.string(),
	detail: z.string().optional(),
	instance: z.string().optional(),
	errors: z.array(z.object({ field: z.string(), message: z.string(), code: z.string().optional() })).optional(),
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
			['name', 'address_line', 'address_line_2', 'address_line_3', 'city', 'state', 'postal_code', 'country', 'address_type', 'tax_id', 'phone_number'].map((k) => [k, z.string()]),
		),
	),
	message: z.string(),
});
