// The credential's help shows under each field (a hint), since a description shows only on hover.
// "Rotating the Webhook Secret" is the one field whose meaning decides whether deliveries signed
// with the old secret are refused: what it does and when to turn it off must be readable without
// hovering, as for every other field of the credential.
import { expect, test } from 'vitest';
import { loadPackage } from '../../harness/n8n-core-harness.mjs';

test('the rotation switch says under it what it does and when to turn it off, not only on hover', async () => {
	const loader = await loadPackage();
	const switchField = loader.credentialTypes.virtualMailboxApi.type.properties.find(
		(p) => p.name === 'webhookRotation',
	);
	expect(switchField).toBeDefined();
	expect(switchField.hint ?? '').toMatch(/Reset Secret/);
	expect(switchField.hint ?? '').toMatch(/off/);
});
