// `npm run dev`: the simulator keeps its subscriptions in step with the lines the trigger logs
// when n8n activates it (published or listening) and deactivates it. These are the node's own
// lines, produced by its webhook methods through n8n-core, read by test/simulator/follow-triggers.mjs.
import { expect, test, vi } from 'vitest';
import { nodeLogger, runHook } from '../../harness/n8n-core-harness.mjs';
import { followTriggers, triggerChange } from '../../simulator/follow-triggers.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim, credentials } = await simulatorForFile({ count: 10 }, { reset: false });

/** What the trigger logs at info level during one webhook method. */
async function loggedBy(method, events) {
	const info = vi.spyOn(nodeLogger(), 'info');
	try {
		await runHook({
			parameters: { events, options: {} },
			method,
			credentials,
			workflowId: 'wf-follow',
		});
		return info.mock.calls
			.map(([message]) => String(message))
			.filter((m) => m.startsWith('Virtual Mailbox Trigger'));
	} finally {
		info.mockRestore();
	}
}

test("the trigger's activation line names its URL and events; its deactivation line, the same URL", async () => {
	const [activated] = await loggedBy('create', ['new-mail', 'scan-update']);
	const on = triggerChange(activated);
	expect(on.events).toEqual(['new-mail', 'scan-update']);
	expect(on.url).toMatch(/^http:\/\/\S+\/webhook\//);
	const [deactivated] = await loggedBy('delete', ['new-mail', 'scan-update']);
	expect(triggerChange(deactivated)).toEqual({ url: on.url, events: [] });
	expect(
		triggerChange('Virtual Mailbox Trigger rejected a delivery (401): bad signature'),
	).toBeUndefined();
});

test('the simulator follows the lines: one subscription per event while active, a new selection replaces the old, none once deactivated', async () => {
	const follower = followTriggers(sim.url);
	const subscribed = async () =>
		(await (await fetch(`${sim.url}/_control/webhooks`)).json())
			.map((s) => `${s.event} ${s.url} ${s.origin}`)
			.sort();
	const url = 'http://127.0.0.1:5678/webhook-test/0a1b/webhook';
	// As n8n prints them: colours, a timestamp, two lines in one chunk.
	follower.write(
		`\x1b[32m2026-01-01T00:00:00.000Z | info | Virtual Mailbox Trigger active: register ${url} in the dashboard for new-mail, open-update (one subscription per event).\x1b[39m\nsomething else\n`,
	);
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${url} n8n`, `open-update ${url} n8n`]);
	follower.line(
		`Virtual Mailbox Trigger active: register ${url} in the dashboard for shipment-update (one subscription per event).`,
	);
	await follower.settled();
	expect(await subscribed()).toEqual([`shipment-update ${url} n8n`]);
	follower.line(
		`Virtual Mailbox Trigger deactivated: remove or pause the dashboard subscriptions of ${url} if they should stop sending.`,
	);
	await follower.settled();
	expect(await subscribed()).toEqual([]);
});
