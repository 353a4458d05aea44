// A Poll Trigger with Filters whose API key is replaced by a new key of the same account (a
// rotation): the mail that arrived around the rotation and matches the filters is emitted, even
// when the newest mail the trigger recorded sits deeper than the mailbox's newest page.
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
afterEach(() => pollsInFlight.clear());

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
const packages = { event: 'new-mail', filters: { mailType: ['package'] }, options: {} };
async function poll(saved, creds) {
	const { result, staticData } = await runPoll({ parameters: packages, credentials: creds, staticData: JSON.parse(JSON.stringify(saved)), mode: 'trigger', workflowId: 'wf-rotation-filters' });
	return { items: result?.[0] ?? [], saved: JSON.parse(JSON.stringify(staticData)) };
}

test('a rotation of the API key on a trigger filtered to packages, whose last emitted package lies under more than a page of letters polled since, emits the package that arrived around it', async () => {
	const primed = await poll({}, credentials);
	expect(primed.items).toEqual([]);
	const first = (await control('/mail', { sender_name: 'First package', mail_type: 'package' })).mail.id;
	const emitted = await poll(primed.saved, credentials);
	expect(emitted.items.map((item) => item.json.id)).toEqual([first]);
	// Letters the trigger does not watch arrive; the trigger polls meanwhile and emits nothing.
	for (let n = 0; n < 105; n++) await control('/mail', { sender_name: `Letter ${n}`, mail_type: 'letter' });
	const quiet = await poll(emitted.saved, credentials);
	expect(quiet.items).toEqual([]);
	// The key is rotated (same account, server and credential); one package arrives meanwhile:
	// the only new item in the whole mailbox since the last poll.
	const meanwhile = (await control('/mail', { sender_name: 'Package arrived around the rotation', mail_type: 'package' })).mail.id;
	const next = await poll(quiet.saved, { ...credentials, apiKey: sim.readOnlyKey });
	expect(next.items.map((item) => item.json.id)).toEqual([meanwhile]);
});
