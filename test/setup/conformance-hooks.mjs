// Runs in every unit and e2e test file: a request or an answer that does not match the SDK's
// shapes (test/support/conformance.mjs) fails the test during which it happened.
import { afterEach } from 'vitest';
import { takeViolations } from '../support/conformance.mjs';

afterEach(() => {
	const violations = takeViolations();
	if (violations.length) throw new Error(`Not as the provider's SDK declares it:\n- ${[...new Set(violations)].join('\n- ')}`);
});
