// Scan Completed on a Poll Trigger whose API key is replaced by a new key of the same account (a
// rotation, as New Mail goes on through one): a scan that was in process at the last poll and
// completes around the rotation is emitted once.
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import nock from 'nock';
import { startSimulator } from '../simulator/server.mjs';
import { DEFAULT_CREDENTIALS, dist, runPoll } from '../harness/n8n-core-harness.mjs';

const { pollsInFlight } = dist('nodes/shared/state/pollsInFlight.js');

let sim;
let credentials;
beforeAll(async () => {
	nock.restore();
	sim = await startSimulator({ count: 12, seed: 8 });
	credentials = { ...DEFAULT_CREDENTIALS, baseUrl: sim.url, apiKey: sim.apiKey };
});
afterAll(async () => {
	await sim?.close();
	nock.activate();
});
afterEach(() => pollsInFlight.clear());

const control = (path, body) => fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then((r) => r.json());
const scanCompleted = { event: 'scan-completed', options: {} };
async function poll(saved, creds) {
	const { result, staticData } = await runPoll({ parameters: scanCompleted, credentials: creds, staticData: JSON.parse(JSON.stringify(saved)), mode: 'trigger', workflowId: 'wf-scan-rotation' });
	return { items: result?.[0] ?? [], saved: JSON.parse(JSON.stringify(staticData)) };
}

test('a scan in process at the last poll that completes while the API key is rotated to a new key of the same account is emitted once', async () => {
	const pending = sim.db.scans.find((s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST');
	expect(pending).toBeDefined();
	const primed = await poll({}, credentials);
	expect(primed.items).toEqual([]);
	await control(`/scans/${pending.id}/status`, { status: 'COMPLETED' });
	const rotated = { ...credentials, apiKey: sim.readOnlyKey };
	const next = await poll(primed.saved, rotated);
	expect(next.items.map((item) => String(item.json.id))).toEqual([String(pending.id)]);
	expect((await poll(next.saved, rotated)).items).toEqual([]);
});
