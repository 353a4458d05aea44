import { defineConfig } from 'vitest/config';
// The unit project's conformance setup, over the fixture alone.
export default defineConfig({
	test: {
		include: ['test/unit/simulator/conformance-hooks-fixtures/*.fixture.mjs'],
		setupFiles: ['test/setup/conformance-hooks.mjs'],
		pool: 'forks',
		reporters: ['default'],
	},
});
