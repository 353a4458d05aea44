// Seeded random histories of one published Virtual Mailbox Trigger that also listens for test
// events: deliveries and their copies reach the Test URL, the Production URL or both, in any
// order, while n8n restarts (memory gone, static data back to its last save or lost) and copies
// reach another process. The oracle is the true history: every test delivery runs; every distinct
// production delivery runs exactly once, whatever the Test URL received. A failure names its seed
// and the history; VMB_SEED=<seed> replays it.
import { afterEach, describe, expect, test } from 'vitest';
import { dist, processedData, runDelivery } from '../../harness/n8n-core-harness.mjs';
import { rng } from '../../simulator/data.mjs';
import { payloads, request } from '../../support/webhooks.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
afterEach(() => recentDeliveries.clear());

const parameters = { events: ['new-mail'], options: {} };
/** Six distinct deliveries: three mail items, each as it arrived and once archived. */
const DELIVERIES = [7001, 7002, 7003].flatMap((id) => [
	{ ...payloads['new-mail'], id },
	{ ...payloads['new-mail'], id, mail_status: 'ARCHIVED' },
]);

async function history(seed, steps) {
	const random = rng(seed);
	processedData.reset();
	recentDeliveries.clear();
	const workflowId = `wf-test-and-production-${seed}`;
	let production = {}; // the active workflow's static data, in memory
	let saved = {}; // what n8n last saved of it
	const ranInProduction = new Map(); // delivery index → production runs
	const log = [];
	for (let step = 0; step < steps; step++) {
		const roll = random();
		if (roll < 0.1) {
			recentDeliveries.clear();
			production = random() < 0.5 ? JSON.parse(JSON.stringify(saved)) : {};
			log.push('restart');
			continue;
		}
		if (roll < 0.18) {
			recentDeliveries.clear(); // the next copies reach another process
			log.push('another process');
			continue;
		}
		const index = Math.floor(random() * DELIVERIES.length);
		const mode = random() < 0.4 ? 'manual' : 'webhook';
		const run = await runDelivery({
			parameters,
			request: request(DELIVERIES[index]),
			staticData: mode === 'manual' ? {} : production,
			workflowId,
			executionId: `${seed}-${step}`,
			mode,
		});
		const ran = (run.items ?? []).length;
		log.push(`${mode === 'manual' ? 'test' : 'production'} #${index}: ${ran ? 'ran' : 'not run'}`);
		if (mode === 'manual') {
			if (ran !== 1)
				return {
					ok: false,
					message: `seed ${seed}, step ${step}: a test delivery did not run\n${log.join('\n')}`,
				};
		} else {
			ranInProduction.set(index, (ranInProduction.get(index) ?? 0) + ran);
			if (ranInProduction.get(index) !== 1)
				return {
					ok: false,
					message: `seed ${seed}, step ${step}: production delivery #${index} ran ${ranInProduction.get(index)} times\n${log.join('\n')}`,
				};
			if (random() < 0.7) saved = JSON.parse(JSON.stringify(production)); // n8n saves a webhook's static data unreliably
		}
	}
	return { ok: true };
}

describe('one trigger listening at its Test URL and its Production URL, seeded random histories', () => {
	const seeds = process.env.VMB_SEED
		? [Number(process.env.VMB_SEED)]
		: Array.from({ length: 12 }, (_, i) => i + 1);
	test(`${seeds.length} histories of 40 steps: every test delivery runs, every production delivery exactly once, whatever reached the Test URL, across restarts and processes`, async () => {
		for (const seed of seeds) {
			const outcome = await history(seed, 40);
			expect(outcome.ok, outcome.message).toBe(true);
		}
	}, 180_000);
});
