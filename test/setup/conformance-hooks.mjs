// Runs in every test file of the unit, e2e, queue and model projects: a request or an answer that
// does not match the SDK's shapes (test/support/conformance.mjs) fails the test during which it
// happened, and one recorded after the file's last test (afterAll cleanup, a late poll) fails the file.
import { afterAll, afterEach } from 'vitest';
import { takeViolations } from '../support/conformance.mjs';

function failOnViolations() {
	const violations = takeViolations();
	if (violations.length)
		throw new Error(
			`Not as the provider's SDK declares it:\n- ${[...new Set(violations)].join('\n- ')}`,
		);
}

afterEach(failOnViolations);
// Root level, registered before the file's own hooks: vitest runs afterAll hooks last-registered
// first, so this one runs after the file's cleanup.
afterAll(failOnViolations);
