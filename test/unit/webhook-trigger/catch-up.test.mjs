// The webhook trigger catches up on what never reached its webhook (the service never retries a
// delivery): at every activation, through n8n-core's TriggerContext and the executions its emits
// start, the new mail and scan or open completions since the last event it saw run once, in the
// REST shape with caught_up: true, claimed like deliveries so that a delivery and its caught-up
// twin run once between them. Activation costs one list request per kind when nothing is new.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mockApi, resetNock } from '../../support/api.mjs';
import { catchUpWorld, eventKeyOf } from '../../support/catch-up-world.mjs';
import { request } from '../../support/webhooks.mjs';
import {
	CORE_MAJOR,
	DEFAULT_CREDENTIALS,
	dist,
	processedData,
	runDelivery,
	startTrigger,
} from '../../harness/n8n-core-harness.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
const { catchUpPolicy } = dist('nodes/VirtualMailboxTrigger/catchUp.js');
const POLICY = { ...catchUpPolicy };

const EVENTS = ['new-mail', 'scan-update', 'open-update'];
const parameters = (options = {}, events = EVENTS) => ({ events, options });

let world;
let api;
/** The workflow's static data as n8n's database keeps it between activations. */
let saved;
const triggers = [];

beforeEach(() => {
	resetNock();
	api = mockApi();
	world = catchUpWorld();
	world.serve(api);
	processedData.reset();
	recentDeliveries.clear();
	saved = {};
});
afterEach(async () => {
	for (const trigger of triggers.splice(0)) await trigger.close();
	Object.assign(catchUpPolicy, POLICY);
});

/** An activation (n8n start), the static data saved before it; waits for the executions it started. */
async function activate(options = {}, more = {}) {
	const trigger = await startTrigger({
		parameters: parameters({ catchUpIntervalMinutes: 0, ...options }, more.events),
		staticData: clone(saved),
		...more,
	});
	triggers.push(trigger);
	await trigger.settled();
	saved = clone(trigger.staticData);
	return trigger;
}
const deliver = async (event, executionId) => {
	recentDeliveries.clear(); // another process, or after a restart: only the database remains
	return await runDelivery({
		parameters: parameters(),
		request: request(event.payload),
		typeVersion: 2,
		executionId,
	});
};
const ran = (trigger) => trigger.executions.flat().map(eventKeyOf);
const served = () => ({ ...world.served });
/** As n8n saves static data: JSON. */
const clone = (value) => JSON.parse(JSON.stringify(value));

describe('the webhook trigger catches up at activation', () => {
	test('the first activation primes: it reads one page of each kind and runs nothing from before it', async () => {
		for (let i = 0; i < 3; i++) world.complete(world.requestScan(world.addMail().record));
		const trigger = await activate();
		expect(trigger.emitted).toEqual([]);
		expect(trigger.failures).toEqual([]);
		// The account once (to tell a key rotation from another account), one page per kind.
		expect(served()).toEqual({ '/v1/mails': 1, '/v1/scans': 1, '/v1/account': 1 });
		expect(saved['node:Virtual Mailbox'].catchUp.mail.seen).toBeDefined();
	});

	test('events while n8n was down run once at the next activation, oldest first, in the REST shape marked caught_up; a later copy of their deliveries runs nothing', async () => {
		const old = world.addMail();
		await activate();
		// n8n stopped: 3 mail items and 2 completions (one scan, one open request), deliveries lost.
		const events = [world.addMail(), world.addMail({ sender: 'Chase Bank' })];
		events.push(world.complete(world.requestScan(old.record)));
		events.push(world.addMail());
		events.push(world.complete(world.requestScan(events[0].record, 'open')));
		const before = served();
		const trigger = await activate();
		expect(trigger.emitted).toHaveLength(1);
		expect(ran(trigger)).toEqual(events.map((e) => e.key));
		const [mail, , scan, , open] = trigger.executions[0];
		expect(mail).toEqual({ event: 'new-mail', ...events[0].record, caught_up: true });
		expect(scan).toMatchObject({
			event: 'scan-update',
			id: events[2].record.id,
			mail_id: old.record.id,
			type: 'SCAN_REQUEST',
			status: 'COMPLETED',
			caught_up: true,
		});
		expect(open).toMatchObject({
			event: 'open-update',
			type: 'UNBOXING_REQUEST',
			status: 'COMPLETED',
		});
		// One list request per kind.
		expect(world.served['/v1/mails'] - before['/v1/mails']).toBe(1);
		expect(world.served['/v1/scans'] - before['/v1/scans']).toBe(1);
		expect(world.served['/v1/account']).toBe(before['/v1/account']);
		// The deliveries, sent late: each ends at the trigger.
		for (const [i, event] of events.entries())
			expect((await deliver(event, `late-${i}`)).items).toEqual([]);
	});

	test("an event a delivery already ran is not run again by the catch-up, whether or not the webhook's record of it was saved", async () => {
		await activate();
		const delivered = world.addMail();
		const scan = world.complete(world.requestScan(delivered.record));
		expect((await deliver(delivered, 'd1')).items.map((i) => eventKeyOf(i.json))).toEqual([
			delivered.key,
		]);
		expect((await deliver(scan, 'd2')).items.map((i) => eventKeyOf(i.json))).toEqual([scan.key]);
		const lost = world.addMail();
		// The deliveries' static data never reached the saved copy (n8n saves a webhook's unreliably).
		const trigger = await activate();
		expect(ran(trigger)).toEqual([lost.key]);
		expect(trigger.emitted.flat().map(eventKeyOf)).toEqual([delivered.key, scan.key, lost.key]);
	});

	test("with the webhook's record saved, what it delivered is not even emitted (no execution that runs nothing)", async () => {
		await activate();
		const event = world.addMail();
		const staticData = clone(saved);
		recentDeliveries.clear();
		const delivery = await runDelivery({
			parameters: parameters(),
			request: request(event.payload),
			typeVersion: 2,
			staticData,
			executionId: 'd1',
		});
		expect(delivery.items).toHaveLength(1);
		saved = clone(staticData);
		const trigger = await activate();
		expect(trigger.emitted).toEqual([]);
	});

	test('nothing new: each activation makes one list request per kind and starts no execution', async () => {
		for (let i = 0; i < 150; i++) world.addMail();
		await activate();
		const before = served();
		for (let i = 0; i < 3; i++) expect((await activate()).emitted).toEqual([]);
		expect(world.served['/v1/mails'] - before['/v1/mails']).toBe(3);
		expect(world.served['/v1/scans'] - before['/v1/scans']).toBe(3);
		expect(world.served['/v1/account']).toBe(before['/v1/account']);
	});

	test('more than a page of new mail is read page by page down to the last one seen', async () => {
		await activate({}, { events: ['new-mail'] });
		const events = Array.from({ length: 230 }, () => world.addMail());
		const trigger = await activate({}, { events: ['new-mail'] });
		expect(ran(trigger)).toEqual(events.map((e) => e.key));
		expect(world.served['/v1/scans']).toBe(0);
	});

	test('mail logged late (an arrival date before mail already seen) still runs, within the late window', async () => {
		await activate();
		world.addMail();
		await activate();
		const late = world.addMail({ arrivedMsAgo: 60 * 60_000 });
		expect(ran(await activate())).toEqual([late.key]);
	});

	test('a failed read is reported as a failed execution (n8n 2.x; logged on 1.x) and changes nothing: the next activation catches up', async () => {
		await activate();
		const event = world.addMail();
		world.failNext = 1;
		const failed = await activate();
		expect(failed.emitted).toEqual([]);
		// n8n-core 1.x's trigger context has no saveFailedExecution: the failure is logged only.
		if (CORE_MAJOR >= 2) {
			expect(failed.failures).toHaveLength(1);
			expect(failed.failures[0].message).toMatch(/403|forbidden|permi/i);
		} else expect(failed.failures).toEqual([]);
		expect(ran(await activate())).toEqual([event.key]);
	});

	test('off: with Catch Up off, at node version 1.1, in a test run or with a Duplicate Window of 0 it makes no request', async () => {
		await activate();
		world.addMail();
		const before = served();
		for (const [options, more] of [
			[{ catchUp: false }, {}],
			[{}, { typeVersion: 1.1 }],
			[{}, { mode: 'manual' }],
			[{ duplicateWindowMinutes: 0 }, {}],
		]) {
			const trigger = await activate(options, more);
			expect(trigger.emitted).toEqual([]);
			expect(trigger.response.closeFunction).toBeUndefined();
		}
		expect(served()).toEqual(before);
	});

	test('another credential, another server or a copied node starts over (primes) instead of replaying; a new key of the same account goes on', async () => {
		await activate();
		world.addMail();
		const otherCredential = await activate({}, { node: { credentialId: '2' } });
		expect(otherCredential.emitted).toEqual([]);
		world.addMail();
		const copied = await activate({}, { node: { id: 'copied-node', credentialId: '2' } });
		expect(copied.emitted).toEqual([]);
		const rotated = world.addMail();
		const sameAccount = await activate(
			{},
			{
				node: { id: 'copied-node', credentialId: '2' },
				credentials: { ...DEFAULT_CREDENTIALS, apiKey: 'test_sk_rotated_0000000000' },
			},
		);
		expect(ran(sameAccount)).toEqual([rotated.key]);
		world.addMail();
		world.accountId = 'acct_other';
		const otherAccount = await activate(
			{},
			{
				node: { id: 'copied-node', credentialId: '2' },
				credentials: { ...DEFAULT_CREDENTIALS, apiKey: 'test_sk_other_account_000000' },
			},
		);
		expect(otherAccount.emitted).toEqual([]);
	});

	test("a state saved with a fingerprint of another form (a number, none, a list, text that is not the previous version's) primes without failing; the same node and account stored field by field goes on", async () => {
		await activate();
		const primed = saved['node:Virtual Mailbox'].catchUp;
		const { mail, scans, accountId } = primed;
		const keyDigest = createHash('sha256')
			.update(DEFAULT_CREDENTIALS.apiKey)
			.digest('hex')
			.slice(0, 16);
		const structured = {
			node: 'node-under-test',
			account: { credentialId: '1', server: 'http://vmb.test', keyDigest },
		};
		const otherNode = JSON.stringify(['another-node', 'http://vmb.test', '1']);
		for (const fingerprint of [otherNode, '{not json', 7, undefined, ['node-under-test'], null]) {
			saved['node:Virtual Mailbox'].catchUp = { fingerprint, keyDigest, accountId, mail, scans };
			world.addMail();
			const before = served();
			const trigger = await activate();
			expect(trigger.failures).toEqual([]);
			expect(trigger.emitted).toEqual([]);
			expect(world.served['/v1/account']).toBe(before['/v1/account'] + 1);
			expect(saved['node:Virtual Mailbox'].catchUp.fingerprint).toEqual(structured);
		}
		// The fingerprint as built here, field by field, with the kinds as the last activation left them.
		saved['node:Virtual Mailbox'].catchUp = {
			...saved['node:Virtual Mailbox'].catchUp,
			fingerprint: structured,
		};
		const next = world.addMail();
		const before = served();
		const trigger = await activate();
		expect(ran(trigger)).toEqual([next.key]);
		expect(world.served['/v1/account']).toBe(before['/v1/account']);
	});

	test("mail that arrived while n8n was down for the update from the previous version (its fingerprint a string, the key's digest beside it) runs at the first activation after it", async () => {
		await activate();
		const state = saved['node:Virtual Mailbox'].catchUp;
		// The state as the previous version saved it.
		saved['node:Virtual Mailbox'].catchUp = {
			fingerprint: JSON.stringify(['node-under-test', 'http://vmb.test', '1']),
			keyDigest: createHash('sha256').update(DEFAULT_CREDENTIALS.apiKey).digest('hex').slice(0, 16),
			accountId: state.accountId,
			mail: state.mail,
			scans: state.scans,
		};
		const whileDown = world.addMail();
		const trigger = await activate();
		expect(trigger.failures).toEqual([]);
		expect(ran(trigger)).toEqual([whileDown.key]);
		expect(saved['node:Virtual Mailbox'].catchUp.fingerprint).toEqual({
			node: 'node-under-test',
			account: {
				credentialId: '1',
				server: 'http://vmb.test',
				keyDigest: state.fingerprint.account.keyDigest,
			},
		});
		expect(saved['node:Virtual Mailbox'].catchUp.keyDigest).toBeUndefined();
	});

	test("while active, the interval catches up on n8n's cron what a stopped webhook process missed, with no expression engine at hand after activation as in n8n 2.x; closing stops it", async () => {
		// At 200 ms a minute: the default interval (60 minutes) would take 12 s.
		catchUpPolicy.minuteMs = 200;
		const trigger = await startTrigger({
			parameters: parameters({ catchUpIntervalMinutes: 1 }),
			staticData: {},
		});
		triggers.push(trigger);
		// One cron, every minute, at a second of its own.
		expect(trigger.crons.map((cron) => cron.expression)).toEqual([
			expect.stringMatching(/^([0-9]|[1-5][0-9]) \* \* \* \* \*$/),
		]);
		const primed = served();
		const event = world.addMail();
		trigger.tick(); // before the interval has passed: nothing is read
		expect(served()).toEqual(primed);
		const deadline = Date.now() + 5_000;
		while (trigger.executions.length === 0 && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 20));
			trigger.tick();
		}
		expect(trigger.failures).toEqual([]);
		expect(ran(trigger)).toEqual([event.key]);
		await trigger.settled();
		await new Promise((resolve) => setTimeout(resolve, 50));
		const ticks = trigger.crons.map((cron) => cron.onTick);
		await trigger.close();
		const after = served();
		world.addMail();
		for (const onTick of ticks) onTick(); // a tick n8n had under way as it deactivated
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(served()).toEqual(after);
		expect(trigger.emitted).toHaveLength(1);
	});

	test('Catch-Up Interval 0 registers no cron; an interval that is not a number fails activation before any request, naming the option', async () => {
		const none = await startTrigger({
			parameters: parameters({ catchUpIntervalMinutes: 0 }),
			staticData: {},
		});
		triggers.push(none);
		expect(none.crons).toEqual([]);
		const before = served();
		await expect(
			startTrigger({
				parameters: parameters({ catchUpIntervalMinutes: 'hourly' }),
				staticData: {},
			}),
		).rejects.toThrow(/Catch-Up Interval \(Minutes\) must be a number of at least 0.*"hourly"/);
		expect(served()).toEqual(before);
	});
});
