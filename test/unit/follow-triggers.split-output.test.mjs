// `npm run dev` hands the follower n8n's output as it comes off the pipe (test/e2e/real-n8n.mjs:
// one call per data chunk, trimmed at its end). A pipe read can end in the middle of a line; the
// follower says it takes "chunks, split anywhere". A trigger whose activation line straddles two
// chunks must still be subscribed, or it never hears from the simulator.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { followTriggers } from '../simulator/follow-triggers.mjs';

let sim;
beforeAll(async () => {
	sim = await startSimulator({ count: 1 });
});
afterAll(async () => {
	await sim?.close();
});

const subscribed = async () => (await (await fetch(`${sim.url}/_control/webhooks`)).json()).map((s) => `${s.event} ${s.url}`).sort();

test('an activation line split across two chunks of n8n output still subscribes its URL', async () => {
	await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
	const follower = followTriggers(sim.url);
	const url = 'http://127.0.0.1:5678/webhook-test/3c9e/webhook';
	const line = `2026-01-01T00:00:00.000Z | info | Virtual Mailbox Trigger active: register ${url} in the dashboard for new-mail, scan-update (one subscription per event).\n`;
	const cut = line.indexOf('in the dashboard');
	// As startN8n passes them on: each chunk trimmed at its end.
	follower.write(line.slice(0, cut).trimEnd());
	follower.write(line.slice(cut).trimEnd());
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${url}`, `scan-update ${url}`]);
});

test('a deactivation line split across two chunks still unsubscribes its URL', async () => {
	await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
	const follower = followTriggers(sim.url);
	const url = 'http://127.0.0.1:5678/webhook/7d2f/webhook';
	follower.write(`Virtual Mailbox Trigger active: register ${url} in the dashboard for new-mail (one subscription per event).\n`);
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${url}`]);
	const line = `Virtual Mailbox Trigger deactivated: remove or pause the dashboard subscriptions of ${url} if they should stop sending.`;
	const cut = line.indexOf('/webhook/') + 4;
	follower.write(line.slice(0, cut));
	follower.write(line.slice(cut));
	await follower.settled();
	expect(await subscribed()).toEqual([]);
});
