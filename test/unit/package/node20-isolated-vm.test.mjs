// `npm install` on Node 20 warns EBADENGINE: isolated-vm wants Node 24. It comes with n8n-workflow
// (the package's peer and the tests' n8n-core need it) through @n8n/expression-runtime, which loads
// it only when n8n's isolated expression engine is switched on. The README says the warning is
// harmless: with scripts off (.npmrc) it is never built, and nothing here ever loads it: a node run
// through n8n-core with an expression leaves it out of the module cache.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import nock from 'nock';
import { expect, test } from 'vitest';
import { runNode } from '../../harness/n8n-core-harness.mjs';
import { startSimulator } from '../../simulator/server.mjs';
import { ROOT_DIR } from '../../setup/paths.mjs';

const require = createRequire(path.join(ROOT_DIR, 'package.json'));

test('isolated-vm comes only through n8n-workflow, and wants the Node the README says npm warns about', () => {
	const manifest = JSON.parse(
		fs.readFileSync(path.join(ROOT_DIR, 'node_modules/isolated-vm/package.json'), 'utf8'),
	);
	expect(manifest.engines.node).toBe('>=24.0.0');
	const runtime = JSON.parse(
		fs.readFileSync(
			path.join(ROOT_DIR, 'node_modules/@n8n/expression-runtime/package.json'),
			'utf8',
		),
	);
	expect(runtime.dependencies['isolated-vm']).toBeDefined();
	const { devDependencies } = JSON.parse(
		fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8'),
	);
	expect(devDependencies['isolated-vm']).toBeUndefined();
});

test('a node run through n8n-core, with an expression, never loads isolated-vm', async () => {
	nock.enableNetConnect('127.0.0.1');
	const sim = await startSimulator({ count: 5, seed: 1 });
	try {
		const { items, error } = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'get',
				mailId: `={{ "${sim.db.mails[0].id}" }}`,
			},
			credentials: {
				environment: 'custom',
				baseUrl: sim.url,
				apiKey: sim.apiKey,
				webhookSecret: sim.webhookSecret,
				previousWebhookSecret: '',
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe(sim.db.mails[0].id);
		const loaded = Object.keys(require.cache).filter((file) =>
			file.includes(`${path.sep}node_modules${path.sep}isolated-vm${path.sep}`),
		);
		expect(loaded).toEqual([]);
	} finally {
		await sim.close();
	}
});
