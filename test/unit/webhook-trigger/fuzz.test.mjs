import crypto from 'node:crypto';
import { expect, test } from 'vitest';
import { runWebhook } from '../../harness/n8n-core-harness.mjs';
import { SECRET, payloads, sign } from '../../support/webhooks.mjs';
import { rng } from '../../simulator/data.mjs';

// Deterministic pseudo-random source (the simulator's) so a failure can be replayed.

test('thousands of random deliveries: only correctly signed ones can start a workflow', async () => {
	const random = rng(20261122);
	const pick = (list) => list[Math.floor(random() * list.length)];
	const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
	const bodies = [
		() => bytes(Math.floor(random() * 200)),
		() =>
			Buffer.from(
				JSON.stringify({ ...pick(Object.values(payloads)), id: Math.floor(random() * 1e6) }),
			),
		() =>
			Buffer.from(JSON.stringify(pick([null, [], 1, 'x', {}, { uuid: 1 }, { image_url: 'x' }]))),
		() => Buffer.from(''),
	];
	const now = Date.now();
	const signatures = [
		(raw, ts) => crypto.createHmac('sha256', SECRET).update(`${ts}.`).update(raw).digest('hex'), // valid
		(raw, ts) => crypto.createHmac('sha256', 'wrong').update(`${ts}.`).update(raw).digest('hex'),
		() => bytes(32).toString('hex'),
		() => bytes(Math.floor(random() * 40)).toString('hex'),
		() => bytes(8).toString('base64'),
		() => '',
	];
	const timestamps = [
		() => String(now),
		() => String(now - 3_600_000),
		() => String(now + 3_600_000),
		() => 'NaN',
		() => String(now / 1000),
		() => '-1',
		() => '',
	];
	const names = [
		['usgm-webhook-signature', 'usgm-webhook-timestamp'],
		['svc-webhook-signature', 'svc-webhook-timestamp'],
		['x-signature', 'x-timestamp'],
		['usgm-webhook-signature', 'other-webhook-timestamp'],
	];

	let startedCount = 0;
	let validCount = 0;
	const runs = 2500;
	for (let n = 0; n < runs; n++) {
		const raw = pick(bodies)();
		const ts = pick(timestamps)();
		const sigIndex = Math.floor(random() * signatures.length);
		const signature = signatures[sigIndex](raw, ts);
		const nameIndex = Math.floor(random() * names.length);
		const [sigName, tsName] = names[nameIndex];
		const headers = { 'content-type': 'application/json', [sigName]: signature, [tsName]: ts };
		if (random() < 0.05) headers['extra-webhook-signature'] = signature;
		const validlySigned =
			sigIndex === 0 &&
			ts === String(now) &&
			nameIndex !== 2 &&
			!headers['extra-webhook-signature'];
		if (validlySigned) validCount++;
		const { result, response } = await runWebhook({
			parameters: {
				events: ['new-mail', 'scan-update', 'open-update', 'shipment-update'],
				options: { duplicateWindowMinutes: 0 },
			},
			request: { headers, rawBody: raw, body: {} },
		});
		if (result.workflowData) {
			startedCount++;
			expect(validlySigned, `delivery ${n} started a workflow without a valid signature`).toBe(
				true,
			);
		}
		if (!validlySigned) expect(response.statusCode).toBe(401);
	}
	expect(validCount).toBeGreaterThan(20);
	expect(startedCount).toBeGreaterThan(0);
	// sanity: a correctly signed known payload does start
	const ok = sign(payloads['new-mail']);
	const { result } = await runWebhook({
		parameters: { events: ['new-mail'], options: {} },
		request: { headers: ok.headers, rawBody: ok.raw, body: {} },
	});
	expect(result.workflowData).toBeDefined();
}, 120_000);
