import { defineConfig } from 'vitest/config';

export default defineConfig({
	test: {
		// The harness shares one loaded package per worker; nock is per process.
		pool: 'forks',
		testTimeout: 30_000,
		hookTimeout: 120_000,
		projects: [
			{ extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.mjs'], globalSetup: ['test/setup/unit-setup.mjs'] } },
			// Real n8n and Chromium are installed (or the run stops with the cause) before any e2e test.
			{ extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.mjs'], globalSetup: ['test/setup/global-setup.mjs'], testTimeout: 300_000, pool: 'forks', poolOptions: { forks: { singleFork: true } } } },
		],
	},
});
