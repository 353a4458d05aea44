// A Poll Trigger whose workflow is re-activated (deactivate and activate, or an edit saved on the
// active workflow) while a poll is still running. n8n loads the new activation's static data from
// its database; the running poll works on the old activation's and, when it ends, emits and saves
// that on n8n 1.x (its ActiveWorkflows emits whatever a poll returns); n8n 2.x discards the result
// of a poll whose activation was superseded (PollTriggerExecutor, isCurrent). Each mail item must
// be emitted once across both activations on either line.
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runPoll } from '../harness/n8n-core-harness.mjs';

const { pollsInFlight } = dist('nodes/shared/state/pollsInFlight.js');

let sim;
let credentials;
beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 12, seed: 7 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
afterEach(() => {
	sim.settings.latencyMs = 0;
	pollsInFlight.clear();
});

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
const copy = (value) => JSON.parse(JSON.stringify(value));
const workflowId = 'wf-reactivated-while-polling';
/** n8n 1.x emits (and saves) a superseded activation's in-flight poll; 2.x discards it. */
const supersededPollEmits = (process.env.VMB_N8N_CORE ?? '').startsWith('n8n-core-1.') || process.env.VMB_SUPERSEDED_POLL_EMITS === '1';
/** One poll on an activation's static data (the object n8n keeps in the active workflow's memory). */
const poll = async (parameters, memory) => {
	const { result, staticData } = await runPoll({ parameters, credentials, staticData: memory, workflowId });
	return { ids: (result?.[0] ?? []).map((item) => item.json.id), memory: staticData };
};

for (const [what, before, after] of [
	['deactivated and activated again (no edit)', { event: 'new-mail', filters: {}, options: {} }, { event: 'new-mail', filters: {}, options: {} }],
	['an options edit saved (Download File turned on)', { event: 'new-mail', filters: {}, options: {} }, { event: 'new-mail', filters: {}, options: { downloadFile: true } }],
]) {
	test(`${supersededPollEmits ? 'n8n 1.x' : 'n8n 2.x'}: a workflow ${what} while a poll is running emits that poll's new mail once, not again from the new activation`, async () => {
		let database = copy((await poll(before, {})).memory); // the activation's poll primed and n8n saved it
		const fresh = (await control('/mail', { sender_name: 'Arrived before the slow poll' })).mail.id;
		sim.settings.latencyMs = 300;
		const oldActivation = copy(database);
		const running = poll(before, oldActivation);
		await new Promise((resolve) => setTimeout(resolve, 60));
		// Re-activated meanwhile: n8n loads the static data from the database; the activation runs a poll.
		let newActivation = copy(database);
		const activationPoll = await poll(after, newActivation);
		newActivation = activationPoll.memory;
		sim.settings.latencyMs = 0;
		const slow = await running;
		const emitted = [...activationPoll.ids];
		if (supersededPollEmits) {
			emitted.push(...slow.ids);
			database = copy(slow.memory); // n8n 1.x: the old activation's poll emitted, and n8n saved its static data
		}
		// the next scheduled poll of the active workflow, on its memory
		emitted.push(...(await poll(after, newActivation)).ids);
		expect(emitted.filter((id) => id === fresh)).toHaveLength(1);
	});
}
