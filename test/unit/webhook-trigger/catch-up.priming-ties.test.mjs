// The webhook trigger's catch-up at the edges of what it has seen: a completion that ties the
// newest one the priming read. Through n8n-core's TriggerContext, as catch-up.test.mjs.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mockApi, resetNock } from '../../support/api.mjs';
import { catchUpWorld, eventKeyOf } from '../../support/catch-up-world.mjs';
import { processedData, startTrigger } from '../../harness/n8n-core-harness.mjs';

const EVENTS = ['new-mail', 'scan-update', 'open-update'];

let world;
let saved;
const triggers = [];

beforeEach(() => {
	resetNock();
	world = catchUpWorld();
	world.serve(mockApi());
	processedData.reset();
	saved = {};
});
afterEach(async () => {
	for (const trigger of triggers.splice(0)) await trigger.close();
});

/** An activation (n8n start) on the static data saved before it; waits for the executions it started. */
async function activate(events = EVENTS) {
	const trigger = await startTrigger({
		parameters: { events, options: { catchUpIntervalMinutes: 0 } },
		staticData: JSON.parse(JSON.stringify(saved)),
	});
	triggers.push(trigger);
	await trigger.settled();
	saved = JSON.parse(JSON.stringify(trigger.staticData));
	return trigger;
}
const ran = (trigger) => trigger.executions.flat().map(eventKeyOf);

describe('the catch-up at the edges of what it has seen', () => {
	test('a scan completed after the priming, in the same second as the newest completion the priming read, runs', async () => {
		const mail = world.addMail().record;
		const first = world.requestScan(mail);
		const second = world.requestScan(mail);
		world.complete(first);
		await activate(['scan-update']);
		// The API's times are whole seconds: the second completion shares the first one's.
		const event = world.complete(second);
		second.status_updated_at = second.updated_at = first.status_updated_at;
		expect(ran(await activate(['scan-update']))).toEqual([event.key]);
	});
});
