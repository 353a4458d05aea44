// A Virtual Mailbox credential saved before "Rotating the Webhook Secret" existed has Previous
// Webhook Secret filled in and no value for the switch. n8n does not hand the node what was saved:
// its CredentialsHelper (applyDefaultsAndOverwrites) runs the saved data through
// NodeHelpers.getNodeParameters, which fills the switch's default (off) and drops every field its
// displayOptions hide, so the previous secret never reaches the trigger, and "saved but switch not
// set" cannot be told apart from "switch off". docs/contract.md states the consequence: such a
// credential accepts the previous secret once Rotating is turned on (the field then shows again).
import { beforeEach, expect, test } from 'vitest';
import { resetNock, mockApi } from '../../support/api.mjs';
import { DEFAULT_CREDENTIALS, loadPackage, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { PREVIOUS, payloads, request } from '../../support/webhooks.mjs';

const { NodeHelpers } = await import('n8n-workflow');

beforeEach(() => {
	resetNock();
	mockApi();
});

/** The credential as n8n's CredentialsHelper gives it to a node: defaults filled, hidden fields dropped. */
async function asN8nGivesIt(saved) {
	const loader = await loadPackage();
	return NodeHelpers.getNodeParameters(
		loader.credentialTypes.virtualMailboxApi.type.properties,
		saved,
		true,
		false,
		null,
		null,
	);
}

const deliverSignedWithPrevious = async (credentials, id) =>
	await runWebhook({
		parameters: { events: ['new-mail'], options: {} },
		request: request({ ...payloads['new-mail'], id }, { secret: PREVIOUS }),
		credentials,
		workflowId: 'wf-saved-before-switch',
	});

test('a credential saved with a Previous Webhook Secret but no rotation switch value accepts the previous secret once Rotating is turned on (n8n drops the hidden field until then)', async () => {
	const { webhookRotation: _none, ...saved } = {
		...DEFAULT_CREDENTIALS,
		previousWebhookSecret: PREVIOUS,
	};
	expect('webhookRotation' in saved).toBe(false);
	const given = await asN8nGivesIt(saved);
	expect(given.webhookRotation).toBe(false);
	expect(given.previousWebhookSecret).toBeUndefined();
	const refused = await deliverSignedWithPrevious(given, 7701);
	expect(refused.response.statusCode).toBe(401);
	expect(refused.result.workflowData).toBeUndefined();

	// The user opens the credential, turns Rotating on: the kept previous secret shows and counts.
	const rotating = await asN8nGivesIt({ ...saved, webhookRotation: true });
	expect(rotating.previousWebhookSecret).toBe(PREVIOUS);
	const accepted = await deliverSignedWithPrevious(rotating, 7702);
	expect(accepted.response.statusCode).toBe(200);
	expect(accepted.result.workflowData?.[0]).toHaveLength(1);
});
