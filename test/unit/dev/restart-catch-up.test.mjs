// `npm run dev` starts a fresh simulator each time, over the n8n data the dev home keeps: a
// published webhook trigger (version 2) catches up at each start from the state it saved at the
// last one. A restart must not look like mail arrived while n8n was down: the simulator of a
// later session holds the same seeded mail and samples, which arrived when they did before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { processedData, startTrigger } from '../../harness/n8n-core-harness.mjs';
import { freePort } from '../../e2e/real-n8n.mjs';
import { devSimulatorOptions } from '../../simulator/dev-session.mjs';

let home;
let port;
beforeAll(async () => {
	port = await freePort();
	nock.enableNetConnect('127.0.0.1');
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-catch-up-'));
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

const DAY = 86_400_000;

/**
 * One `npm run dev` start at `at` (ms): its simulator, `before(sim)` (what happened while n8n was
 * down), and the trigger's activation over `saved`.
 */
async function start(at, saved, before = async () => {}) {
	vi.useFakeTimers({ toFake: ['Date'], now: at });
	// A new process each start: the simulator module afresh, on the dev command's fixed port.
	vi.resetModules();
	const { startSimulator } = await import('../../simulator/server.mjs');
	const sim = await startSimulator({ port, ...devSimulatorOptions(home) });
	try {
		await before(sim);
		const trigger = await startTrigger({
			parameters: { events: ['new-mail', 'scan-update', 'open-update'], options: {} },
			credentials: {
				environment: 'custom',
				baseUrl: sim.url,
				apiKey: sim.apiKey,
				webhookSecret: sim.webhookSecret,
				previousWebhookSecret: '',
			},
			staticData: JSON.parse(JSON.stringify(saved)),
		});
		await trigger.settled();
		await trigger.close();
		return {
			emitted: trigger.emitted.flat(),
			saved: JSON.parse(JSON.stringify(trigger.staticData)),
		};
	} finally {
		await sim.close();
	}
}

for (const [gap, ms] of [
	['an hour', 3_600_000],
	['a day', DAY],
	['a week', 7 * DAY],
]) {
	test(`a restart ${gap} later runs only the mail logged while n8n was down: no seeded or sample mail is caught up as new`, async () => {
		processedData.reset();
		const t0 = Date.parse('2026-11-20T10:00:00Z');
		const first = await start(t0, {});
		expect(first.emitted).toEqual([]);
		const second = await start(t0 + ms, first.saved, (sim) =>
			fetch(`${sim.url}/_control/mail`, {
				method: 'POST',
				body: JSON.stringify({ sender_name: 'While n8n was down', mail_type: 'letter' }),
			}),
		);
		expect(second.emitted.map((e) => `${e.event} ${e.sender_name}`)).toEqual([
			'new-mail While n8n was down',
		]);
	});
}
