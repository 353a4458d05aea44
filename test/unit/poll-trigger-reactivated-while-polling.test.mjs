// A Poll Trigger whose workflow is re-activated (deactivate and activate, or an edit saved on the
// active workflow) while a poll is still running. n8n loads the new activation's static data from
// its database; the running poll works on the old activation's and, when it ends, emits and saves
// that. Each mail item must still be emitted once across both activations.
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
/** One poll on an activation's static data (the object n8n keeps in the active workflow's memory). */
const poll = async (parameters, memory) => {
	const { result, staticData } = await runPoll({ parameters, credentials, staticData: memory, workflowId });
	return { ids: (result?.[0] ?? []).map((item) => item.json.id), memory: staticData };
};

for (const [what, before, after] of [
	['deactivated and activated again (no edit)', { event: 'new-mail', filters: {}, options: {} }, { event: 'new-mail', filters: {}, options: {} }],
	['an options edit saved (Download File turned on)', { event: 'new-mail', filters: {}, options: {} }, { event: 'new-mail', filters: {}, options: { downloadFile: true } }],
]) {
	test(`a workflow ${what} while a poll is running emits that poll's new mail once, not again from the new activation`, async () => {
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
		database = copy(slow.memory); // the old activation's poll emitted: n8n saves its static data
		const emitted = [...activationPoll.ids, ...slow.ids];
		// the next scheduled poll of the active workflow, on its memory
		emitted.push(...(await poll(after, newActivation)).ids);
		expect(emitted.filter((id) => id === fresh)).toHaveLength(1);
	});
}
