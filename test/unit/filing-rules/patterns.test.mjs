// File by Rules, Matches a Pattern: a pattern is a JavaScript regular expression (docs/filing-rules.md),
// so every pattern JavaScript accepts compiles and matches as JavaScript would, and a pattern written
// the way n8n's own regex comparisons take it (between slashes, with flags) is not a silent non-match.
import { describe, expect, test } from 'vitest';
import { dist } from '../../harness/n8n-core-harness.mjs';

const R = dist('nodes/VirtualMailbox/actions/mail/filingRules.js');
const pattern = (value) => ({
	field: 'sender',
	comparison: 'matchesPattern',
	value,
	folder: { __rl: true, mode: 'name', value: 'Taxes' },
});
const first = (value, sender) => {
	const decision = R.decide(R.parseRules({ rule: [pattern(value)] }), { sender });
	return decision.kind === 'matched' ? decision.rule.position : decision.kind;
};

describe('Matches a Pattern takes the regular expressions JavaScript takes', () => {
	test('an escaped hyphen, valid in JavaScript, compiles and matches', () => {
		expect(new RegExp('IRS\\-Ogden', 'i').test('IRS-Ogden')).toBe(true);
		expect(() => R.parseRules({ rule: [pattern('IRS\\-Ogden')] })).not.toThrow();
		expect(first('IRS\\-Ogden', 'IRS-Ogden')).toBe(1);
	});

	test('an escaped space and a literal brace, valid in JavaScript, compile and match', () => {
		expect(first('Wells\\ Fargo', 'Wells Fargo Bank')).toBe(1);
		expect(first('^Invoice {', 'Invoice {2291}')).toBe(1);
	});

	test("a pattern written between slashes with flags, as n8n's Switch takes it, matches instead of never matching", () => {
		// n8n's own "matches regex" comparison reads /pattern/flags; here it would look for the slashes.
		expect(first('/^irs/i', 'IRS Ogden')).toBe(1);
		expect(first('/ogden$/', 'IRS Ogden')).toBe(1);
	});
});

describe('a pattern that backtracks without end', () => {
	test('ends the item with an error naming the rule instead of holding n8n', async () => {
		const { spawnSync } = await import('node:child_process');
		const { ROOT_DIR } = await import('../../setup/paths.mjs');
		const module = `${ROOT_DIR}/dist/nodes/VirtualMailbox/actions/mail/filingRules.js`;
		// A nested quantifier, a classic typo in a hand-written pattern, against a 40-letter sender.
		const script = `
			const R = require(${JSON.stringify(module)});
			const rules = R.parseRules({ rule: [{ field: 'sender', comparison: 'matchesPattern', value: '^(a+)+$', folder: { __rl: true, mode: 'name', value: 'A' } }] });
			try { console.log(JSON.stringify(R.decide(rules, { sender: 'a'.repeat(40) + '!' }).kind)); }
			catch (error) { console.log(JSON.stringify(String(error.message))); }`;
		const child = spawnSync(process.execPath, ['-e', script], {
			timeout: 20_000,
			encoding: 'utf8',
		});
		// n8n's own regex comparisons stop such a pattern after 250 ms (n8n-workflow safeRegex).
		expect(
			child.error?.code,
			'the match was still running after 20 s: n8n would be blocked',
		).toBeUndefined();
		expect(JSON.parse(child.stdout.trim())).toMatch(/none|Rule 1/);
	}, 30_000);
});
