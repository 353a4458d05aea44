// Seeded random histories of a Poll Trigger (New Mail) whose credential is switched between two
// accounts, and edited (a new API key for the same account: a rotation), while mail arrives in
// both. The oracle is the true history: a poll whose account differs from the last poll's primes
// (emits nothing; switching away and back between two polls changes nothing); any other poll, a
// rotation's included, emits exactly the mail that arrived in the current account since the last
// poll, oldest first. A failure names its seed and the history; VMB_SEED=<seed> replays it.
import { describe, expect, test } from 'vitest';
import { rng } from '../../simulator/data.mjs';
import { DEFAULT_CREDENTIALS, runPoll } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

// Each history resets both mailboxes itself.
const { sim: a } = await simulatorForFile({ count: 15, seed: 21 }, { reset: false });
const { sim: b } = await simulatorForFile({ count: 15, seed: 22 }, { reset: false });
const accounts = [
	{ name: 'A', sim: a, credentialId: 'cred-a', keys: [a.apiKey, a.readOnlyKey] },
	{ name: 'B', sim: b, credentialId: 'cred-b', keys: [b.apiKey, b.readOnlyKey] },
];

const parameters = { event: 'new-mail', filters: {}, options: {} };

async function history(seed, steps) {
	const random = rng(seed);
	for (const account of accounts)
		account.sim.reset({ count: 15, seed: account.name === 'A' ? 21 : 22 });
	let current = 0;
	let keyIndex = 0;
	let saved = {};
	let lastPolled; // the account of the last poll; undefined before the activation's
	const arrived = [[], []]; // mail ids per account since its last poll (or prime)
	const log = [];
	for (let step = 0; step < steps; step++) {
		const roll = random();
		if (roll < 0.35) {
			const target = random() < 0.6 ? current : 1 - current;
			const { mail } = await fetch(`${accounts[target].sim.url}/_control/mail`, {
				method: 'POST',
				body: JSON.stringify({ sender_name: `Step ${step}` }),
			}).then((r) => r.json());
			arrived[target].push(mail.id);
			log.push(`mail ${accounts[target].name}:${mail.id}`);
		} else if (roll < 0.5) {
			current = 1 - current;
			keyIndex = 0;
			log.push(`switch to ${accounts[current].name}`);
		} else if (roll < 0.58) {
			keyIndex = 1 - keyIndex;
			log.push(`rotate the key of ${accounts[current].name}`);
		} else {
			const account = accounts[current];
			const credentials = {
				...DEFAULT_CREDENTIALS,
				baseUrl: account.sim.url,
				apiKey: account.keys[keyIndex],
			};
			const { result, staticData } = await runPoll({
				parameters,
				credentials,
				staticData: JSON.parse(JSON.stringify(saved)),
				workflowId: `wf-switch-${seed}`,
				node: { credentialId: account.credentialId },
			});
			saved = JSON.parse(JSON.stringify(staticData));
			const emitted = (result?.[0] ?? []).map((item) => item.json.id);
			const primes = lastPolled !== current;
			const expected = primes ? [] : arrived[current];
			log.push(`poll ${account.name}: ${JSON.stringify(emitted)}`);
			if (JSON.stringify(emitted) !== JSON.stringify(expected)) {
				return {
					ok: false,
					message: `seed ${seed}, step ${step}: emitted ${JSON.stringify(emitted)}, expected ${JSON.stringify(expected)}\n${log.join('\n')}`,
				};
			}
			arrived[current] = [];
			lastPolled = current;
		}
	}
	return { ok: true };
}

describe('switching the credential between accounts, seeded random histories', () => {
	const seeds = process.env.VMB_SEED
		? [Number(process.env.VMB_SEED)]
		: Array.from({ length: 25 }, (_, i) => i + 1);
	test(`${seeds.length} histories of 60 steps: a poll with another account than the last poll's emits nothing, every other poll (after a key rotation too) exactly the current account's mail since the last poll`, async () => {
		for (const seed of seeds) {
			const outcome = await history(seed, 60);
			expect(outcome.ok, outcome.message).toBe(true);
		}
	}, 120_000);
});
