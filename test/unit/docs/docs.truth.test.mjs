// What docs/ says about the repository, checked against it: no history in the docs (they say what
// is, the CHANGELOG and git say what was), each test docs/promises.md names exists, and what the
// development guide says `npm run dev` imports is what it imports.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { UNPUBLISHED_IN_DEV } from '../../e2e/examples.mjs';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
// contract.md is where changes before the first release are stated (the guide asks for it there).
const DOCS = readdirSync(path.join(ROOT, 'docs'))
	.filter((f) => f.endsWith('.md') && f !== 'contract.md')
	.map((f) => `docs/${f}`);

describe('docs say what is, not what was', () => {
	for (const file of DOCS) {
		test(`${file}: no history (numbers of issues or of rounds of review, commit hashes, before/now comparisons)`, () => {
			const found = read(file)
				.split('\n')
				.map((line, i) => [i + 1, line])
				.filter(([, line]) =>
					/\bissue #?\d+|\breview\b|\bround [a-e]\b|\brow \d+\b|before the lock|\b[0-9a-f]{7,12}\b(?![-\w])|^\| (before|now):/i.test(
						line,
					),
				)
				.map(([n, line]) => `${file}:${n}: ${line.slice(0, 100)}`);
			expect(found).toEqual([]);
		});
	}
});

describe('docs/promises.md names tests that exist', () => {
	test('each "file › title" it names is a test title (or describe) in that file', () => {
		const unescape = (text) => text.replace(/\\(.)/g, '$1');
		/** A title whose numbers may come from a template: its longest stretch without digits is in the file. */
		const inFile = (source, title) => {
			if (source.includes(title)) return true;
			// The model test's kinds, cited as "burst:, stop:": each is a kind of that file.
			if (/^([\w-]+:,?\s*)+$/.test(title))
				return title
					.split(/,\s*/)
					.every((kind) => source.includes(`kind: '${kind.replace(/:$/, '')}'`));
			const stretch = title.split(/[\d,.]*\d[\d,.]*/).sort((a, b) => b.length - a.length)[0];
			// A short stretch must sit next to a template part: "10000 items:" is `${count} items:`.
			return (
				(stretch.trim().length >= 15 && source.includes(stretch.trim())) ||
				source.includes(`}${stretch}`) ||
				source.includes(`${stretch}\${`)
			);
		};
		const missing = [];
		let section = '';
		for (const line of read('docs/promises.md').split('\n')) {
			if (line.startsWith('## ')) section = line;
			if (!line.startsWith('| ') || line.startsWith('| promise')) continue;
			// The scaling section says: all in test/queue/queue.test.mjs unless named otherwise.
			let file = section.startsWith('## Scaling') ? 'test/queue/queue.test.mjs' : undefined;
			const tests = line
				.split(/(?<!\\)\|/)
				.slice(2, -1)
				.join('|');
			for (const segment of tests.split(/;\s*/)) {
				const named = segment.match(/`((?:test|bench)\/[^`]+\.m?js)`/);
				if (named) file = named[1];
				for (const part of segment.split('›').slice(1)) {
					// A title up to its first template part or ellipsis, without a trailing note in parentheses.
					const title = part
						.replace(/\s*\((?:`[^`]*`|[^)]*)\)\s*$/, '')
						.split(/\$\{|…/)[0]
						.trim()
						.slice(0, 60);
					if (!title) continue;
					if (!file || !existsSync(path.join(ROOT, file)))
						missing.push(`${file} (no such file): ${title}`);
					else if (!inFile(unescape(read(file)), title)) missing.push(`${file}: ${title}`);
				}
			}
		}
		expect(missing).toEqual([]);
	});
});

describe('docs/development.md describes `npm run dev` as it is', () => {
	test('the number of examples imported unpublished is the number the dev command leaves unpublished', () => {
		const text = read('docs/development.md');
		const said = text.match(/example workflows \(published but for (one|two|three)/);
		expect(said, 'docs/development.md says which examples are published').not.toBeNull();
		expect({ one: 1, two: 2, three: 3 }[said[1]]).toBe(UNPUBLISHED_IN_DEV.length);
	});
});
