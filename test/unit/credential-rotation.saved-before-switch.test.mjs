// A Virtual Mailbox credential saved before "Rotating the Webhook Secret" existed has Previous
// Webhook Secret filled in and no value for the switch. n8n hands the node such a credential with
// the switch at its default (off). The user pasted the previous secret precisely because a
// rotation was under way: deliveries signed with it must still verify, not be refused with 401.
import { beforeEach, expect, test } from 'vitest';
import { resetNock, mockApi } from '../support/api.mjs';
import { DEFAULT_CREDENTIALS, runWebhook } from '../harness/n8n-core-harness.mjs';
import { PREVIOUS, payloads, request } from '../support/webhooks.mjs';

beforeEach(() => {
	resetNock();
	mockApi();
});

test('a credential saved with a Previous Webhook Secret but no rotation switch value still accepts deliveries signed with the previous secret', async () => {
	const { webhookRotation: _none, ...saved } = { ...DEFAULT_CREDENTIALS, previousWebhookSecret: PREVIOUS };
	expect('webhookRotation' in saved).toBe(false);
	const run = await runWebhook({
		parameters: { events: ['new-mail'], options: {} },
		request: request({ ...payloads['new-mail'], id: 7701 }, { secret: PREVIOUS }),
		credentials: saved,
		workflowId: 'wf-saved-before-switch',
	});
	expect(run.response.statusCode).toBe(200);
	expect(run.result.workflowData?.[0]).toHaveLength(1);
});
