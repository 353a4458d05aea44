// Numbers in the API's JSON are kept digit for digit: an id sent as a bare JSON number beyond 2^53
// (the spec says ids are strings; a real service may still send numbers) comes out as the string
// of its digits, never rounded, and works as an id in the next request.
import { expect, test } from 'vitest';
import { simulatorForFile } from '../../harness/simulator.mjs';
import { dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { LONG_ID_PREFIX } from '../../simulator/quirks.mjs';

const env = await simulatorForFile({ count: 300, seed: 11 }, { fastRetries: true });

test('25-digit ids in a list and a record are kept digit for digit, and used as such', async () => {
	env.sim.quirks.add({ kind: 'longIds' });
	const listed = await runNode({
		parameters: {
			resource: 'mail',
			operation: 'getAll',
			returnAll: false,
			limit: 3,
			filters: {},
			options: { sort: 'newest' },
		},
		credentials: env.credentials,
	});
	expect(listed.error).toBeUndefined();
	const ids = listed.items.map((i) => i.json.id);
	expect(ids).toHaveLength(3);
	for (const id of ids) expect(id).toMatch(new RegExp(`^${LONG_ID_PREFIX}\\d{6}$`));
	// Two ids that differ only past the 16th digit stay two ids.
	expect(new Set(ids).size).toBe(3);
	for (const id of ids)
		expect(env.sim.db.mails.some((m) => `${LONG_ID_PREFIX}${m.id}` === id)).toBe(true);

	const got = await runNode({
		parameters: { resource: 'mail', operation: 'get', mailId: ids[0] },
		credentials: env.credentials,
	});
	expect(got.error).toBeUndefined();
	expect(got.items[0].json.id).toBe(ids[0]);
	expect(env.sim.requests.at(-1).path).toBe(`/v1/mails/${ids[0].slice(LONG_ID_PREFIX.length)}`);
});

test('the parse keeps big integers as their digits and leaves every other value as JSON.parse gives it', () => {
	const { parseJsonKeepingDigits } = dist('nodes/shared/digits.js');
	const text =
		'{"a":12345678901234567890123,"b":-9007199254740993,"c":9007199254740991,"d":1.5e300,' +
		'"e":"x 12345678901234567890 \\" 99999999999999999","f":[1,22222222222222222222],"g":12345678901234567.5}';
	expect(parseJsonKeepingDigits(text)).toEqual({
		a: '12345678901234567890123',
		b: '-9007199254740993',
		c: 9007199254740991,
		d: 1.5e300,
		e: 'x 12345678901234567890 " 99999999999999999',
		f: [1, '22222222222222222222'],
		g: 12345678901234567.5,
	});
	expect(() => parseJsonKeepingDigits('<html>12345678901234567890</html>')).toThrow();
});
