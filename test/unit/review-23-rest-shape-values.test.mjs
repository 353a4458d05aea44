// Review of #23 (one shape of mail): values the provider sends that restShape.ts maps to something
// the REST API never outputs, so a rule written against Shipment → Get / Mail → Get / the Poll
// Trigger silently never matches the webhook trigger's version-2 item.
import { describe, expect, test } from 'vitest';
import { dist } from '../harness/n8n-core-harness.mjs';
import { payloads } from '../support/webhooks.mjs';

const { restShapeOf } = dist('nodes/VirtualMailboxTrigger/restShape.js');

// The REST values (spec "Shipment"; SDK ShipmentDetailDto.Status, GET /v1/mails mail_type filter).
const REST_SHIPMENT_STATUSES = ['shipped', 'in_progress', 'payment_failed', 'rejected'];

describe('review #23: webhook values mapped onto REST values', () => {
	test("shipment-update: the provider's own sample status PROCESSED becomes a REST shipment status", () => {
		// The spec ("a PROCESSED occurrence") and the provider's support article sample send
		// status "PROCESSED"; REST has no "processed": in_progress "covers every internal workflow
		// state between request and shipment". A Switch on status = in_progress never matches.
		const rest = restShapeOf('shipment-update', { ...payloads['shipment-update'], status: 'PROCESSED' });
		expect(REST_SHIPMENT_STATUSES).toContain(rest.status);
		expect(rest.delivery.status).toBe('PROCESSED');
	});

	for (const event of ['new-mail', 'scan-update', 'open-update']) {
		test(`${event}: the provider's upper-case LARGELETTER is REST's large_letter`, () => {
			// The provider's upper-case mail type (POST /v1/sandbox/seed/mail, nodes/shared/constants.ts
			// SEED_MAIL_TYPES) is LARGELETTER, listed by REST as large_letter (docs/api.md). Lower-casing
			// gives "largeletter", which no REST output or filter has.
			const rest = restShapeOf(event, { ...payloads[event], mail_type: 'LARGELETTER' });
			expect(rest.mail_type).toBe('large_letter');
		});
	}

	test('scan-update: an empty ai_label / ai_summary is null, as REST label and summary are', () => {
		// README: "Empty text where REST has null ... is null". A plan without scan labeling sends no
		// label; REST gives label null and summary null; the mapper gives "" and [].
		const rest = restShapeOf('scan-update', { ...payloads['scan-update'], ai_label: '', ai_summary: '' });
		expect(rest.label).toBeNull();
		expect(rest.summary).toBeNull();
	});

	test('scan-update: a delivered field named `type` does not replace the REST scan type', () => {
		// Unknown fields "pass through unchanged", but one called `type` is spread after the computed
		// type and overwrites it (SCAN_REQUEST / UNBOXING_REQUEST), so the output has a non-REST type.
		const rest = restShapeOf('scan-update', { ...payloads['scan-update'], type: 'document' });
		expect(rest.type).toBe('SCAN_REQUEST');
	});
	test("shipment-update: the provider's sample destination (address_type \"residential\") keeps a field REST has, no invented destination.type", () => {
		// REST Shipment.destination has name, line1, line2, city, state, postal_code, country and no
		// `type` (spec; SDK ShipmentDetailDto.Destination). restShape.ts says fields without a REST
		// counterpart keep their names, yet renames address_type to `type`, the name of Address.type
		// (`shipping` / `deposit`); the provider's sample sends "residential", so the v2 item carries
		// destination.type "residential", a value no REST `type` has.
		const sample = {
			id: 'b3ba0f4f-9ae6-4256-8b70-cd5f404756a9', auto_forward: 'false',
			destination_address: {
				name: 'Home Address', address_line: '2204 18th Street NW', address_line_2: 'Apt 3B', address_line_3: '', city: 'Washington',
				state: 'District of Columbia', postal_code: '20009', country: 'United States', address_type: 'residential', tax_id: '123-45-6789', phone_number: '+1-202-555-0143',
			},
			service: 'DHL Express Easy', status: 'PROCESSED', tracking_data: '1234567890', message: 'Shipment re',
		};
		const rest = restShapeOf('shipment-update', sample);
		expect(rest.destination).toMatchObject({ name: 'Home Address', line1: '2204 18th Street NW', line2: 'Apt 3B', city: 'Washington' });
		expect(['shipping', 'deposit', undefined]).toContain(rest.destination.type);
	});
});
