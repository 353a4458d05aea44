// `npm run dev` hands the follower n8n's output as it comes off the pipe. A pipe read can end in
// the middle of a line: a trigger whose activation line straddles two reads must still be
// subscribed, or it never hears from the simulator. Both ways in are covered: the follower's own
// `write` (raw chunks) and startN8n's line splitter feeding `line` (as dev.mjs does).
import { expect, test } from 'vitest';
import { followTriggers } from '../../simulator/follow-triggers.mjs';
import { lineSplitter } from '../../e2e/real-n8n.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim } = await simulatorForFile({ count: 1 }, { reset: false });

const subscribed = async () =>
	(await (await fetch(`${sim.url}/_control/webhooks`)).json())
		.map((s) => `${s.event} ${s.url}`)
		.sort();
const url = 'http://127.0.0.1:5678/webhook-test/3c9e/webhook';
const activation = `2026-01-01T00:00:00.000Z | info | Virtual Mailbox Trigger active: register ${url} in the dashboard for new-mail, scan-update (one subscription per event).\n`;
// Cut just after a space, the place where trimming a chunk's end would glue two words together.
const cut = activation.indexOf('in the dashboard');

test('an activation line split across two chunks of n8n output still subscribes its URL', async () => {
	await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
	const follower = followTriggers(sim.url);
	follower.write(activation.slice(0, cut));
	await follower.settled();
	expect(await subscribed()).toEqual([]);
	follower.write(activation.slice(cut));
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${url}`, `scan-update ${url}`]);
});

test("an activation line split across two pipe reads reaches the follower whole through n8n's runner", async () => {
	await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
	const follower = followTriggers(sim.url);
	const stdout = lineSplitter(follower.line);
	stdout.data(`n8n ready\n${activation.slice(0, cut)}`);
	stdout.data(activation.slice(cut));
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${url}`, `scan-update ${url}`]);
});

test('a deactivation line split across two chunks still unsubscribes its URL', async () => {
	await fetch(`${sim.url}/_control/webhooks`, { method: 'DELETE' });
	const follower = followTriggers(sim.url);
	const production = 'http://127.0.0.1:5678/webhook/7d2f/webhook';
	follower.write(
		`Virtual Mailbox Trigger active: register ${production} in the dashboard for new-mail (one subscription per event).\n`,
	);
	await follower.settled();
	expect(await subscribed()).toEqual([`new-mail ${production}`]);
	const line = `Virtual Mailbox Trigger deactivated: remove or pause the dashboard subscriptions of ${production} if they should stop sending.\n`;
	const at = line.indexOf('/webhook/') + 4;
	follower.write(line.slice(0, at));
	follower.write(line.slice(at));
	await follower.settled();
	expect(await subscribed()).toEqual([]);
});
