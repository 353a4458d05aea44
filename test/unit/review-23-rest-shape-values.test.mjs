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
});
