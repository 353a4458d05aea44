// Seeded mixed quirks: each API request may get a page instead of a record, a gateway error after
// a write, a 429 with a short or unreadable Retry-After, extra or absent fields (test/simulator/
// quirks.mjs, MIXED_KINDS), drawn by a seed. Return All, File by Rules, the Poll Trigger and the
// webhook trigger (deliveries with Add Full Resource, some lost, then its catch-up at activation)
// run through n8n-core's harness; the simulator's own state is the oracle: nothing is lost,
// doubled or misfiled, and a write that failed after it was done says so. A failure prints its seed;
// VMB_SEED=<n> replays that one.
import { describe, expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import {
	dist,
	processedData,
	runDelivery,
	runNode,
	runPoll,
	startTrigger,
} from '../../harness/n8n-core-harness.mjs';
import { rng, TYPE_LABELS } from '../../simulator/data.mjs';
import { LONG_ID_PREFIX, MIXED_KINDS } from '../../simulator/quirks.mjs';
import { WebhookSender } from '../../simulator/webhooks.mjs';
import { eventKeyOf } from '../../support/catch-up-world.mjs';
import { request } from '../../support/webhooks.mjs';
import { byName } from '../filing-rules/simulator.mjs';

const { recentDeliveries } = dist('nodes/shared/state/recentDeliveries.js');
/**
 * REST answers to the webhook trigger may also carry the provider's upper-case enums. Long ids are
 * played on one full-resource read per history, not mixed: a service does not change its ids
 * between answers, and a list whose ids changed would rightly read as new mail.
 */
const TRIGGER_KINDS = [...MIXED_KINDS, 'upperEnums'];
const MAIL_TYPES = Object.keys(TYPE_LABELS);
const MAIL_STATUSES = ['inbox', 'archived', 'quarantined', 'deleted', 'shipped', 'recycled'];

const MAILBOX = { count: 240, seed: 29 };
const env = await simulatorForFile(MAILBOX, { fastRetries: true });
const apiOrder = async (search) => (await fetch(`${env.sim.url}/_control/query?${search}`)).json();

/** The rules filed by, and the oracle's own reading of them (first match wins). */
const RULES = [
	{ field: 'mailType', mailTypes: ['magazine', 'catalog'], folder: 'Reading' },
	{ field: 'sender', comparison: 'contains', value: 'bank', folder: 'Banks', archive: true },
	{ field: 'mailType', mailTypes: ['letter'], folder: 'Letters', markRead: true },
];
const expectedFolder = (mail) =>
	RULES.find((r) =>
		r.field === 'mailType'
			? r.mailTypes.includes(mail.mail_type)
			: String(mail.sender_name ?? '')
					.toLowerCase()
					.includes(r.value),
	)?.folder;

const fileByRules = (items) =>
	runNode({
		parameters: {
			resource: 'mail',
			operation: 'applyRules',
			rules: {
				rule: RULES.map(({ folder, ...rule }) => ({ ...rule, folder: byName(folder) })),
			},
		},
		items,
		continueOnFail: true,
		credentials: env.credentials,
	});

/** One seeded history; returns what went wrong, or nothing. */
async function history(seed) {
	const random = rng(seed * 7919);
	const problems = [];
	const check = (ok, what) => ok || problems.push(what);
	env.sim.reset(MAILBOX);
	env.sim.quirks.mix({ seed, rate: 0.2 });

	// Return All, either way of reading.
	const parallel = random() < 0.5 ? 1 : 6;
	const listed = await runNode({
		parameters: {
			resource: 'mail',
			operation: 'getAll',
			returnAll: true,
			filters: { status: ['inbox'] },
			options: { maxParallelRequests: parallel },
		},
		credentials: env.credentials,
	});
	const truth = await apiOrder('status=inbox&sort=newest');
	check(!listed.error, `Return All (${parallel} in flight) failed: ${listed.error?.message}`);
	const ids = listed.items.map((i) => i.json.id);
	check(
		JSON.stringify(ids) === JSON.stringify(truth),
		`Return All (${parallel} in flight) gave ${ids.length} items, the inbox holds ${truth.length}` +
			` (${ids.filter((id) => !truth.includes(id)).length} not in it, ${truth.filter((id) => !ids.includes(id)).length} missing)`,
	);

	// File by Rules over a few listed items; failed items are run again without quirks, as a user would.
	const picked = listed.items.filter(() => random() < 0.08).slice(0, 12);
	const before = new Map(
		picked.map((i) => [i.json.id, { ...env.sim.db.mails.find((m) => m.id === i.json.id) }]),
	);
	const filed = await fileByRules(picked.map((i) => i.json));
	const failed = [];
	filed.items.forEach((out, k) => {
		const id = picked[k].json.id;
		if (!out.json.error) return;
		failed.push(picked[k].json);
		const now = env.sim.db.mails.find((m) => m.id === id);
		const was = before.get(id);
		const changed =
			now.folder_id !== was.folder_id ||
			now.mail_status !== was.mail_status ||
			now.is_read !== was.is_read;
		const text = `${out.json.error} ${out.json.description ?? ''}`;
		check(
			!changed || /may already have acted|filed into/.test(text),
			`mail ${id} was changed, but its error does not say it may have been: ${text.slice(0, 200)}`,
		);
	});
	const applied = new Set(env.sim.quirks.applied.map((q) => q.kind));
	env.sim.quirks.clear();
	if (failed.length) {
		const again = await fileByRules(failed);
		check(
			!again.error && again.items.every((i) => !i.json.error),
			`File by Rules again failed: ${again.items
				.map((i) => i.json.error)
				.filter(Boolean)
				.join('; ')}`,
		);
	}
	for (const item of picked) {
		const mail = env.sim.db.mails.find((m) => m.id === item.json.id);
		const want = expectedFolder(mail);
		const folder = env.sim.db.folders.find((f) => f.id === mail.folder_id);
		const rule = RULES.find((r) => r.folder === want);
		check(
			want
				? folder?.name === want &&
						(!rule.archive || mail.mail_status === 'archived') &&
						(!rule.markRead || mail.is_read === true)
				: mail.folder_id === before.get(mail.id).folder_id,
			`mail ${mail.id} (${mail.mail_type}, ${mail.sender_name}) is in ${folder?.name ?? 'no folder'} (${mail.mail_status}, read ${mail.is_read}), the rules say ${want ?? 'unchanged'}`,
		);
	}
	for (const name of new Set(RULES.map((r) => r.folder)))
		check(
			env.sim.db.folders.filter((f) => f.name === name).length <= 1,
			`folder "${name}" exists ${env.sim.db.folders.filter((f) => f.name === name).length} times`,
		);

	// Poll Trigger, new mail: polls that fail are polled again (n8n polls on); every new item once.
	env.sim.quirks.mix({ seed: seed + 1, rate: 0.2 });
	let saved = {};
	const poll = async () => {
		try {
			const { result, staticData } = await runPoll({
				parameters: { event: 'new-mail', filters: {}, options: {} },
				credentials: env.credentials,
				staticData: JSON.parse(JSON.stringify(saved)),
			});
			saved = JSON.parse(JSON.stringify(staticData));
			return (result?.[0] ?? []).map((i) => i.json.id);
		} catch {
			return undefined;
		}
	};
	for (let k = 0; k < 6 && (await poll()) === undefined; k++);
	const added = [];
	const emitted = [];
	for (let round = 0; round < 3; round++) {
		const n = 1 + Math.floor(random() * 5);
		for (let k = 0; k < n; k++)
			added.push(env.sim.mailbox.addMail({ sender_name: `Sender ${seed}-${round}-${k}` }).id);
		for (let k = 0; k < 6; k++) {
			const got = await poll();
			if (got === undefined) continue;
			emitted.push(...got);
			break;
		}
	}
	env.sim.quirks.clear();
	emitted.push(...((await poll()) ?? []));
	check(
		JSON.stringify([...emitted].sort()) === JSON.stringify([...added].sort()),
		`Poll Trigger emitted ${emitted.length} items for ${added.length} new (missing ${added.filter((id) => !emitted.includes(id)).join(',') || 'none'}; twice ${emitted.filter((id, k) => emitted.indexOf(id) !== k).join(',') || 'none'})`,
	);

	// Webhook trigger, Add Full Resource on: signed deliveries of new mail and completed scans, some
	// lost on the way (the service never retries), then the catch-up at activation. Every event runs
	// once, with canonical enums; a full-resource read that got no record keeps the event, with an error.
	processedData.reset();
	recentDeliveries.clear();
	env.sim.quirks.mix({ seed: seed + 2, rate: 0.2, kinds: TRIGGER_KINDS });
	const workflowId = `wf-quirks-${seed}`;
	const parameters = {
		events: ['new-mail', 'scan-update'],
		options: { includeDetails: true, catchUpIntervalMinutes: 0 },
	};
	let triggerSaved = {};
	const ran = [];
	/** One activation (n8n start); true when its catch-up read everything. */
	const activate = async () => {
		const trigger = await startTrigger({
			parameters,
			credentials: env.credentials,
			staticData: JSON.parse(JSON.stringify(triggerSaved)),
			workflowId,
		});
		await trigger.settled();
		await trigger.close();
		triggerSaved = JSON.parse(JSON.stringify(trigger.staticData));
		ran.push(...trigger.executions.flat());
		return trigger.failures.length === 0;
	};
	for (let k = 0; k < 6 && !(await activate()); k++);
	check(ran.length === 0, `the first activation ran ${ran.length} events from before it`);
	const sender = new WebhookSender(env.sim.mailbox, env.sim.webhookSecret);
	const events = [];
	const letters = env.sim.db.mails.filter((m) => m.mail_type === 'letter' && !m.scan);
	for (let k = 0; k < 8; k++) {
		if (random() < 0.6 || !letters.length) {
			const mail = env.sim.mailbox.addMail({
				mail_type: MAIL_TYPES[Math.floor(random() * MAIL_TYPES.length)],
				sender_name: `Webhook ${seed}-${k}`,
			});
			events.push({ key: `new-mail:${mail.id}`, event: 'new-mail', record: mail });
		} else {
			const scan = env.sim.mailbox.createScan(letters.pop(), 'SCAN_REQUEST');
			env.sim.mailbox.setScanStatus(scan, 'COMPLETED');
			events.push({ key: `scan-update:${scan.id}|COMPLETED`, event: 'scan-update', record: scan });
		}
	}
	// One new mail's full-resource read gets a login page however often it is retried.
	const unreadable = events.find((e) => e.event === 'new-mail');
	if (unreadable)
		env.sim.quirks.add({
			kind: 'html',
			method: 'GET',
			path: new RegExp(`^/v1/mails/${unreadable.record.id}$`),
			count: 50,
		});
	env.sim.quirks.add({ kind: 'longIds', method: 'GET', path: /^\/v1\/mails\/\d+$/, count: 1 });
	for (const [k, e] of events.entries()) {
		if (e !== unreadable && random() < 0.35) continue; // lost on the way
		if (random() < 0.5) recentDeliveries.clear(); // another process, or after a restart
		try {
			const { items } = await runDelivery({
				parameters,
				request: request(sender.payload(e.event, e.record), { secret: env.sim.webhookSecret }),
				credentials: env.credentials,
				staticData: JSON.parse(JSON.stringify(triggerSaved)),
				workflowId,
				executionId: `${seed}-${k}`,
				typeVersion: 2,
			});
			ran.push(...(items ?? []).map((i) => i.json));
		} catch (error) {
			problems.push(`the delivery of ${e.key} failed: ${error.message}`);
		}
	}
	for (let k = 0; k < 6 && !(await activate()); k++);
	const triggerApplied = env.sim.quirks.applied.map((q) => q.kind);
	env.sim.quirks.clear();
	await activate();
	const keys = ran.map(eventKeyOf);
	const trigger = { delivered: 0, caughtUp: 0, unread: 0 };
	for (const e of events) {
		const n = keys.filter((key) => key === e.key).length;
		check(n === 1, `webhook trigger: ${e.key} ran ${n} times`);
	}
	if (unreadable)
		check(
			ran.some((i) => eventKeyOf(i) === unreadable.key && typeof i.mail_item_error === 'string'),
			`webhook trigger: ${unreadable.key}, whose full resource could not be read, ran without mail_item_error`,
		);
	const strays = keys.filter((key) => !events.some((e) => e.key === key));
	check(!strays.length, `webhook trigger ran events that did not happen: ${strays.join(', ')}`);
	for (const item of ran) {
		const key = eventKeyOf(item);
		const mail = env.sim.db.mails.find(
			(m) => m.id === String(item.event === 'new-mail' ? item.id : item.mail_id),
		);
		// A caught-up scan is the REST scan record, which names no mail type.
		if (item.event === 'new-mail' || item.mail_type !== undefined)
			check(
				MAIL_TYPES.includes(item.mail_type) && item.mail_type === mail?.mail_type,
				`webhook trigger: ${key} has mail_type ${item.mail_type}, the mailbox says ${mail?.mail_type}`,
			);
		if (item.mail_status !== undefined)
			check(
				MAIL_STATUSES.includes(item.mail_status),
				`webhook trigger: ${key} has mail_status ${item.mail_status}`,
			);
		if (item.event === 'scan-update')
			check(item.status === 'COMPLETED', `webhook trigger: ${key} has status ${item.status}`);
		if (item.caught_up) {
			trigger.caughtUp++;
			continue; // the catch-up's item is the REST record itself
		}
		trigger.delivered++;
		const [field, id] =
			item.event === 'new-mail' ? ['mail_item', mail?.id] : ['scan_summary', undefined];
		const record = item[field];
		const isRecord = record && typeof record === 'object' && !Array.isArray(record);
		if (!isRecord) trigger.unread++;
		check(
			isRecord || typeof item[`${field}_error`] === 'string',
			`webhook trigger: ${key} has ${field} ${JSON.stringify(record)?.slice(0, 80)} and no ${field}_error`,
		);
		if (isRecord && id !== undefined) {
			check(
				// A 25-digit id is kept to the digit (never rounded through a double).
				String(record.id) === id || String(record.id) === `${LONG_ID_PREFIX}${id}`,
				`webhook trigger: ${key} has ${field}.id ${record.id}, the mail id is ${id}`,
			);
			check(
				MAIL_TYPES.includes(record.mail_type) && MAIL_STATUSES.includes(record.mail_status),
				`webhook trigger: ${key} has ${field} mail_type ${record.mail_type}, mail_status ${record.mail_status}`,
			);
		}
	}
	for (const kind of triggerApplied) applied.add(kind);
	return { problems, applied, writesFailed: failed.length, trigger };
}

describe('seeded mixed quirks: nothing lost, doubled or misfiled', () => {
	const seeds = process.env.VMB_SEED
		? [Number(process.env.VMB_SEED)]
		: Array.from({ length: 6 }, (_, i) => i + 1);
	test(`${seeds.length} seeded histories of Return All, File by Rules, the Poll Trigger and the webhook trigger (deliveries and catch-up) under mixed quirks`, async () => {
		const kinds = new Set();
		let writesFailed = 0;
		const triggerRuns = { delivered: 0, caughtUp: 0, unread: 0 };
		for (const seed of seeds) {
			const { problems, applied, writesFailed: failed, trigger } = await history(seed);
			for (const kind of applied) kinds.add(kind);
			writesFailed += failed;
			for (const [key, n] of Object.entries(trigger)) triggerRuns[key] += n;
			expect(
				problems,
				`seed ${seed} (replay: VMB_SEED=${seed} npx vitest run --config vitest.config.mjs --project unit test/unit/transport/quirks-mixed.test.mjs)`,
			).toEqual([]);
		}
		// The default seeds play every kind, and some writes fail under them.
		if (!process.env.VMB_SEED) {
			expect([...kinds].sort()).toEqual([...TRIGGER_KINDS, 'longIds'].sort());
			expect(writesFailed).toBeGreaterThan(0);
			// The webhook trigger ran deliveries and caught-up events, and some full-resource reads got no record.
			expect(triggerRuns.delivered, JSON.stringify(triggerRuns)).toBeGreaterThan(0);
			expect(triggerRuns.caughtUp, JSON.stringify(triggerRuns)).toBeGreaterThan(0);
			expect(triggerRuns.unread, JSON.stringify(triggerRuns)).toBeGreaterThan(0);
		}
	}, 60_000);
});
