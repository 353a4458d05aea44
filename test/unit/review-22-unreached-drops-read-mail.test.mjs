// Review of #22, limit 4: "mail still out of reach makes one poll fail with an error naming its
// arrival dates; that poll raises the floor past it". The floor is raised past the lowest key of
// the part that could not be listed, so mail of *another* part that the same poll listed in full
// (within reach, its list ended) and that is older than that key is dropped too: it was never out
// of reach, still matches, and is never emitted.
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, runPoll } from '../harness/n8n-core-harness.mjs';

let sim;
let credentials;
beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 400, seed: 5 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
beforeEach(() => sim.reset({ count: 400, seed: 5 }));

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
const inboxLetters = { event: 'new-mail', filters: { status: ['inbox'], mailType: ['letter'], scanStatus: ['none'] }, options: {} };

test('mail listed in full by a reachable part is emitted even when another part is out of reach', async () => {
	const state = {};
	await runPoll({ parameters: inboxLetters, credentials, staticData: state }); // priming
	const readLetters = [];
	for (let n = 0; n < 30; n++) {
		const id = (await control('/mail', { sender_name: `Read ${n}`, mail_type: 'letter' })).mail.id;
		sim.db.mails.find((m) => m.id === id).is_read = true;
		readLetters.push(id);
	}
	for (let n = 0; n < 150; n++) await control('/mail', { sender_name: `Unread ${n}`, mail_type: 'letter' });
	sim.changed();
	expect(sim.db.mails.filter((m) => readLetters.includes(m.id)).every((m) => m.mail_status === 'inbox' && !m.scan)).toBe(true);
	await control('/faults', { path: '/v1/mails', method: 'GET', cursor: true, status: 422, count: 100_000 });
	const failed = await runPoll({ parameters: inboxLetters, credentials, staticData: state }).catch((error) => error);
	expect(failed).toBeInstanceOf(Error); // the unread part is out of reach past its first page: reported
	const emitted = [];
	for (let n = 0; n < 3; n++) {
		const { result } = await runPoll({ parameters: inboxLetters, credentials, staticData: state });
		emitted.push(...(result?.[0] ?? []).map((i) => i.json.id));
	}
	// the 30 read letters were listed completely (one page, the list's end) by the is_read=true part
	expect(readLetters.filter((id) => !emitted.includes(id))).toEqual([]);
});
