// Review of #22: `arrival_date` is nullable (API spec, mail item fields). The trigger gives such an
// item the order key [0, id] and stops reading the list at the first item at or below the floor
// ("newest first: the rest is at or below the floor too"). An item without an arrival date that the
// API lists before newer mail therefore ends every poll's read early: mail that arrived after it and
// matches the query is never emitted, which no stated limit allows.
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
async function poll(parameters, saved = {}) {
	const { result, staticData } = await runPoll({ parameters, credentials, staticData: JSON.parse(JSON.stringify(saved)), mode: 'trigger' });
	return { items: result?.[0] ?? [], saved: JSON.parse(JSON.stringify(staticData)) };
}
const newMail = { event: 'new-mail', filters: {}, options: {} };

test('an item without arrival_date listed first does not hide the new mail listed after it', async () => {
	const { saved } = await poll(newMail);
	const a = (await control('/mail', { sender_name: 'A' })).mail.id;
	const b = (await control('/mail', { sender_name: 'B' })).mail.id;
	const undated = (await control('/mail', { sender_name: 'Undated' })).mail.id;
	sim.db.mails.find((m) => m.id === undated).arrival_date = null; // nullable in the API
	sim.changed?.();
	const listed = await fetch(`${sim.url}/v1/mails?sort=newest&limit=3`, { headers: { 'x-api-key': sim.apiKey, Authorization: `Bearer ${sim.apiKey}` } }).then((r) => r.json()).catch(() => undefined);
	const next = await poll(newMail, saved);
	const again = await poll(newMail, next.saved);
	const emitted = [...next.items, ...again.items].map((i) => i.json.id);
	// A and B arrived after the priming, match the (empty) filters, are within every limit.
	expect({ emitted, listedFirst: listed?.data?.map((m) => m.id) }).toMatchObject({ emitted: expect.arrayContaining([a, b]) });
});
