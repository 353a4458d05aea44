// The SDK's SeedSandboxMailDto: "`LETTER` and `LARGELETTER` accept a `SCAN_REQUEST`; the rest
// accept an `UNBOXING_REQUEST`". The simulator refuses the other pairs (422 on `type`), so a
// workflow that scans a package or opens a letter fails here as it would against the service.
import { describe, expect, test } from 'vitest';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim, credentials } = await simulatorForFile({ count: 10, seed: 5 }, { reset: false });

async function seed(seedMailType) {
	const { items, error } = await runNode({
		parameters: { resource: 'mail', operation: 'seedMailItem', seedMailType },
		credentials,
	});
	expect(error).toBeUndefined();
	return items[0].json.mail_id;
}

describe('Scan → Create on a seeded item of the wrong kind (SDK: letters take a scan, the rest an open-and-scan)', () => {
	test('a scan request of a PACKAGE is refused', async () => {
		const mailId = await seed('PACKAGE');
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'create', mailId, type: 'scan' },
			credentials,
		});
		expect(error, 'the simulator accepted a SCAN_REQUEST for a package').toBeDefined();
	});
	test('an open-and-scan request of a LETTER is refused', async () => {
		const mailId = await seed('LETTER');
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'create', mailId, type: 'open' },
			credentials,
		});
		expect(error, 'the simulator accepted an UNBOXING_REQUEST for a letter').toBeDefined();
	});
	test('the matching kinds are accepted', async () => {
		for (const [kind, type] of [
			['LARGELETTER', 'scan'],
			['MAGAZINE', 'open'],
		]) {
			const mailId = await seed(kind);
			const { error, items } = await runNode({
				parameters: { resource: 'scan', operation: 'create', mailId, type },
				credentials,
			});
			expect(error).toBeUndefined();
			expect(items[0].json.type).toBe(type === 'scan' ? 'SCAN_REQUEST' : 'UNBOXING_REQUEST');
		}
	});
});

test("the simulator's own sample mailroom follows the rule (no scan request of a package, magazine, catalog or softpak)", () => {
	const typeOf = new Map(sim.db.mails.map((m) => [m.id, m.mail_type]));
	const wrong = sim.db.scans
		.map((s) => `${typeOf.get(s.mail_id)} ${s.type}`)
		.filter((pair) =>
			/^(package|magazine|catalog|softpak) SCAN_REQUEST$|^(letter|large_letter) UNBOXING_REQUEST$/.test(
				pair,
			),
		);
	expect([...new Set(wrong)]).toEqual([]);
});
