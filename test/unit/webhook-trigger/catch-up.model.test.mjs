// Seeded random histories of the webhook trigger with catch-up, against the true history: mail
// arrives and scans complete while n8n is up or down; each delivery is lost, delivered, duplicated
// or delivered late (after later events, restarts and catch-ups, or at the same moment as a
// catch-up); n8n restarts at random points, sometimes before it saved; n8n's static data is saved
// as n8n saves it (the trigger's whole copy at activation end and on emit, a webhook's whole copy
// after a delivery, or not at all). Oracle: every event after the first activation runs exactly
// once, whether by delivery, by catch-up or both; nothing from before it runs. A failure names its
// seed; VMB_SEED=<seed> replays that one.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mockApi, resetNock } from '../../support/api.mjs';
import { catchUpWorld, eventKeyOf } from '../../support/catch-up-world.mjs';
import { rng } from '../../support/deduplication-store.mjs';
import { request } from '../../support/webhooks.mjs';
import { dist, processedData, runDelivery, startTrigger } from '../../harness/n8n-core-harness.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');

const EVENTS = ['new-mail', 'scan-update', 'open-update'];
const parameters = (options = {}) => ({ events: EVENTS, options });
const clone = (value) => JSON.parse(JSON.stringify(value));

beforeEach(() => {
	resetNock();
	processedData.reset();
	recentDeliveries.clear();
});
afterEach(() => resetNock());

/** One history of `steps` steps from `seed`: the runs of each event, and the events that must run once. */
async function history(seed, steps) {
	const random = rng(seed);
	const pick = (n) => Math.floor(random() * n);
	resetNock();
	processedData.reset();
	recentDeliveries.clear();
	const world = catchUpWorld();
	world.serve(mockApi());
	// The API's times are whole seconds: a third of the events share the second of the one before.
	const tick = world.tick;
	world.tick = (ms) => tick(random() < 0.3 ? 0 : ms);
	/** The workflow's static data in n8n's database. */
	let database = {};
	const runs = new Map();
	const ran = (item) => runs.set(eventKeyOf(item), (runs.get(eventKeyOf(item)) ?? 0) + 1);
	const mustRun = new Set();
	const before = new Set();
	/** Delivered before the priming was saved: the delivery may run it, once at most. */
	const atMostOnce = new Set();
	const late = [];
	const log = [];
	let up = false;
	let primed = false;
	let executionId = 0;

	const activate = async () => {
		const trigger = await startTrigger({
			parameters: parameters({ catchUpIntervalMinutes: 0 }),
			staticData: clone(database),
		});
		return trigger;
	};
	const settle = async (trigger) => {
		await trigger.settled();
		for (const items of trigger.executions) for (const item of items) ran(item);
		// n8n saves the trigger's whole copy (after activation, on emit); a crash may come first.
		const saved = random() < 0.85;
		if (saved) database = clone(trigger.staticData);
		else log.push('  (trigger state not saved)');
		await trigger.close();
		// The first activation whose state n8n saved primes; one whose state was lost did not.
		if (saved && !primed) {
			primed = true;
			log.push('  (primed)');
		}
	};
	const deliver = async (event) => {
		// The receiving process: the database's copy, its own memory (another process or a restart).
		if (random() < 0.5) recentDeliveries.clear();
		const staticData = clone(database);
		const result = await runDelivery({
			parameters: parameters(),
			request: request(event.payload),
			typeVersion: 2,
			staticData,
			executionId: String(++executionId),
		});
		for (const item of result.items ?? []) ran(item.json);
		// n8n saves a webhook's static data unreliably: its whole copy, or nothing.
		if (random() < 0.7) database = clone(staticData);
	};
	/** An event happened: its delivery is lost, sent now, sent twice or sent later. */
	const happened = async (event) => {
		const fate = !up ? 'lost' : ['lost', 'delivered', 'duplicated', 'late'][pick(4)];
		(primed ? mustRun : fate === 'lost' ? before : atMostOnce).add(event.key);
		log.push(`${event.key} (${up ? 'up' : 'down'}, ${fate})`);
		if (fate === 'delivered' || fate === 'duplicated') await deliver(event);
		if (fate === 'duplicated') late.push(event);
		if (fate === 'late') late.push(event);
	};

	// Mail and scans before the first activation (never run), then the first activation (priming).
	for (let i = 0; i < 3; i++) await happened(world.addMail());
	const pending = [];
	const requestScan = () => {
		const mails = world.mails;
		pending.push(world.requestScan(mails[pick(mails.length)], random() < 0.3 ? 'open' : 'scan'));
	};
	requestScan();
	await happened(world.complete(pending.shift()));
	requestScan();
	up = true;
	log.push('first activation');
	await settle(await activate());

	for (let step = 0; step < steps; step++) {
		const roll = random();
		if (roll < 0.35) await happened(world.addMail());
		else if (roll < 0.45) requestScan();
		else if (roll < 0.6 && pending.length) await happened(world.complete(pending.shift()));
		else if (roll < 0.75) {
			// n8n stops, or starts again (every start activates the trigger: a catch-up).
			up = !up;
			log.push(up ? 'n8n started' : 'n8n stopped');
			if (up) await settle(await activate());
		} else if (roll < 0.9 && late.length && up) {
			const event = late.splice(pick(late.length), 1)[0];
			log.push(`late delivery of ${event.key}`);
			await deliver(event);
		} else if (up && late.length) {
			// A restart whose catch-up races a late delivery of an event it is about to emit.
			const event = late.splice(pick(late.length), 1)[0];
			log.push(`restart racing the late delivery of ${event.key}`);
			const [trigger] = await Promise.all([activate(), deliver(event)]);
			await settle(trigger);
		}
	}
	// n8n up at the end, every late delivery sent, one more start: everything has had its chance.
	up = true;
	log.push('final start');
	await settle(await activate());
	for (const event of late.splice(0)) await deliver(event);
	return { runs, mustRun, before, atMostOnce, log };
}

describe('catch-up against the true history', () => {
	const seeds = process.env.VMB_SEED
		? [Number(process.env.VMB_SEED)]
		: Array.from({ length: 12 }, (_, i) => 7_100 + i);
	test('histories of 30 steps with lost, duplicated and late deliveries, restarts and catch-ups racing late deliveries: every event after the first activation runs exactly once, none from before it', async () => {
		for (const seed of seeds) {
			const { runs, mustRun, before, atMostOnce, log } = await history(seed, 30);
			const wrong = [];
			for (const key of mustRun)
				if (runs.get(key) !== 1) wrong.push(`${key} ran ${runs.get(key) ?? 0} times`);
			for (const key of before)
				if (runs.has(key)) wrong.push(`${key} (before the first activation) ran`);
			for (const key of atMostOnce)
				if (runs.get(key) > 1) wrong.push(`${key} ran ${runs.get(key)} times`);
			for (const key of runs.keys())
				if (!mustRun.has(key) && !before.has(key) && !atMostOnce.has(key))
					wrong.push(`${key} ran but never happened`);
			expect(wrong, `seed ${seed} (replay: VMB_SEED=${seed})\n${log.join('\n')}`).toEqual([]);
			expect(mustRun.size).toBeGreaterThan(3);
		}
	}, 300_000);
});
