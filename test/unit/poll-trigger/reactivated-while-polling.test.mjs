// A Poll Trigger whose workflow is re-activated (deactivate and activate, or an edit saved on the
// active workflow) while a poll is still running. n8n loads the new activation's static data from
// its database; the running poll works on the old activation's and, when it ends, emits and saves
// that on n8n 1.x (its ActiveWorkflows emits whatever a poll returns); n8n 2.x discards the result
// of a poll whose activation was superseded (PollTriggerExecutor, isCurrent). On 2.x each mail item
// is emitted once across both activations. On 1.x the new activation emits it again: a limit
// docs/poll-trigger.md states, because the node cannot tell whether n8n emitted its result (handing
// the finished poll's state to the new activation would lose that mail on 2.x).
import { afterEach, expect, test } from 'vitest';
import { dist, runPoll } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { pollsInFlight } = dist('nodes/shared/state/pollsInFlight.js');

const { sim, credentials, control } = await simulatorForFile(
	{ count: 12, seed: 7 },
	{ reset: false },
);
afterEach(() => {
	sim.settings.latencyMs = 0;
	pollsInFlight.clear();
});

const copy = (value) => JSON.parse(JSON.stringify(value));
const workflowId = 'wf-reactivated-while-polling';
/** n8n 1.x emits (and saves) a superseded activation's in-flight poll; 2.x discards it. */
const supersededPollEmits =
	(process.env.VMB_N8N_CORE ?? '').startsWith('n8n-core-1.') ||
	process.env.VMB_SUPERSEDED_POLL_EMITS === '1';
/** One poll on an activation's static data (the object n8n keeps in the active workflow's memory). */
const poll = async (parameters, memory) => {
	const { result, staticData } = await runPoll({
		parameters,
		credentials,
		staticData: memory,
		workflowId,
	});
	return { ids: (result?.[0] ?? []).map((item) => item.json.id), memory: staticData };
};

const unchanged = { event: 'new-mail', filters: {}, options: {} };
const downloading = { event: 'new-mail', filters: {}, options: { downloadFile: true } };

/** How many times the mail that arrived before a slow poll is emitted when the workflow is re-activated (parameters `after`) while that poll runs. */
async function timesEmitted(before, after) {
	let database = copy((await poll(before, {})).memory); // the activation's poll primed and n8n saved it
	const fresh = (await control('/mail', { sender_name: 'Arrived before the slow poll' })).mail.id;
	sim.settings.latencyMs = 300;
	const oldActivation = copy(database);
	const running = poll(before, oldActivation);
	await new Promise((resolve) => setTimeout(resolve, 60));
	// Re-activated meanwhile: n8n loads the static data from the database; the activation runs a poll.
	let newActivation = copy(database);
	const activationPoll = await poll(after, newActivation);
	expect(activationPoll.ids).toEqual([]); // the one-poll guard: the old activation's poll still runs
	newActivation = activationPoll.memory;
	sim.settings.latencyMs = 0;
	const slow = await running;
	expect(slow.ids).toContain(fresh);
	const emitted = [...activationPoll.ids];
	if (supersededPollEmits) {
		emitted.push(...slow.ids);
		database = copy(slow.memory); // n8n 1.x: the old activation's poll emitted, and n8n saved its static data
	}
	// the next scheduled poll of the active workflow, on its memory
	emitted.push(...(await poll(after, newActivation)).ids);
	return emitted.filter((id) => id === fresh).length;
}

if (supersededPollEmits) {
	test("n8n 1.x: a workflow deactivated and activated again while a poll is running emits that poll's new mail twice, from the superseded poll and from the new activation (a stated limit)", async () => {
		expect(await timesEmitted(unchanged, unchanged)).toBe(2);
	});
	test("n8n 1.x: an edit saved on the active workflow (Download File turned on) while a poll is running emits that poll's new mail twice, from the superseded poll and from the new activation (a stated limit)", async () => {
		expect(await timesEmitted(unchanged, downloading)).toBe(2);
	});
} else {
	test("a workflow deactivated and activated again while a poll is running emits that poll's new mail once, from the new activation (n8n 2.x discards the superseded poll's result)", async () => {
		expect(await timesEmitted(unchanged, unchanged)).toBe(1);
	});
	test("an edit saved on the active workflow (Download File turned on) while a poll is running emits that poll's new mail once, from the new activation (n8n 2.x discards the superseded poll's result)", async () => {
		expect(await timesEmitted(unchanged, downloading)).toBe(1);
	});
}
