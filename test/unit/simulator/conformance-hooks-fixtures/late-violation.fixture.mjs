// Run by conformance-hooks.test.mjs in its own vitest: a request the SDK would never send
// (bracketed list), made after the file's last test (afterAll), as e2e cleanup or a late poll does.
import { afterAll, expect, test } from 'vitest';
import { startSimulator } from '../../../simulator/server.mjs';

let sim;
const get = (path) =>
	fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
test('a conforming request', async () => {
	sim = await startSimulator({ count: 5, seed: 1 });
	expect((await get('/v1/mails?status=inbox')).status).toBe(200);
});
afterAll(async () => {
	await get('/v1/mails?status%5B%5D=inbox');
	await sim.close();
});
