// Review of #23: versions 1 and 1.1 must behave exactly as before version 2 (dfd3026). The claim
// key of an execution now comes from deliveryOf(item.json), which takes any object-valued
// `delivery` field as "the delivery as sent". At version 1.1 the item IS the delivery, so a payload
// carrying an (unknown) object field `delivery` gets no key, no claim, and a copy runs twice.
import { beforeEach, describe, expect, test } from 'vitest';
import { dist, runDelivery } from '../harness/n8n-core-harness.mjs';
import { payloads, request } from '../support/webhooks.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

describe('review #23: version 1.1 claims unchanged', () => {
	beforeEach(() => recentDeliveries.clear?.());

	for (const typeVersion of [1, 1.1]) {
		test(`version ${typeVersion}: a copy of a delivery with an object field "delivery" is still claimed once`, async () => {
			const body = { ...payloads['new-mail'], id: 8123 + typeVersion * 10, delivery: { carrier: 'USPS' } };
			const run = (executionId) =>
				runDelivery({ parameters: { events: ['new-mail'], options: {} }, request: request(body), typeVersion, executionId, workflowId: `wf-review-23-v${typeVersion}` });
			const first = await run('1');
			expect(first.items.map((i) => i.json.id)).toEqual([body.id]);
			// Another webhook process (or a restart): the webhook's own memory does not know it.
			recentDeliveries.clear?.();
			const second = await run('2');
			expect(second.items ?? []).toEqual([]);
		});
	}
});
