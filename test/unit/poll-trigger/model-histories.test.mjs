// What the Poll Trigger's model checker (test/model) plays in CI (CI_SEEDS × CI_STEPS): the
// histories must mix a burst the trigger's query lists past the API's 10,000-item depth and both
// cursor modes (one that counts positions, one that does not), or the depth division, the
// unreachable report and keyset paging would go untested there.
import { expect, test } from 'vitest';
import { generate } from '../../model/poll-model.mjs';
import { CI_SEEDS, CI_STEPS } from '../../model/run.mjs';
import { MAIL_TYPES } from '../../simulator/mail-query.mjs';

// The generator's burst mix (poll-model.mjs STATUS_MIX, TYPE_MIX); a burst's mail has no scan.
const STATUS_SHARE = { inbox: 0.7, archived: 0.12, quarantine: 0.08, discard_request: 0.1 };
const typeWeight = (t) => (t === 'letter' ? 8 : t === 'package' ? 4 : 1);
const TYPE_TOTAL = MAIL_TYPES.reduce((sum, t) => sum + typeWeight(t), 0);
const DEPTH_LIMIT = 10_000;

function expectedMatches(filters, n) {
	const status = filters.status ? filters.status.reduce((s, v) => s + STATUS_SHARE[v], 0) : 1;
	const type = filters.mailType
		? filters.mailType.reduce((s, t) => s + typeWeight(t), 0) / TYPE_TOTAL
		: 1;
	const scan = filters.scanStatus ? (filters.scanStatus.includes('none') ? 1 : 0) : 1;
	return n * status * type * scan;
}

test('CI histories contain a burst that the active New Mail query lists past the 10,000-item depth', () => {
	const deep = [];
	for (const seed of CI_SEEDS) {
		const history = generate(seed, CI_STEPS);
		let config = history[0].config;
		history.forEach((step, index) => {
			if (step.kind === 'edit') config = step.config;
			if (
				step.kind === 'huge' &&
				config.event === 'new-mail' &&
				expectedMatches(config.filters, step.n) > DEPTH_LIMIT
			)
				deep.push({ seed, index });
		});
	}
	expect(deep.length).toBeGreaterThan(0);
});

test('CI histories play both cursor modes (positions counted and not)', () => {
	const modes = new Set(CI_SEEDS.map((seed) => generate(seed, CI_STEPS)[0].cursorMode));
	expect([...modes].sort()).toEqual(['keyset', 'offset']);
});
