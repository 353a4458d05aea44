// docs/seams.md names, in every cell, the test that holds it: each named test must exist, with
// that exact title, in that file, so the table cannot point at a test that was renamed or removed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT_DIR } from '../setup/paths.mjs';

const table = fs.readFileSync(path.join(ROOT_DIR, 'docs/seams.md'), 'utf8');

/** Every (file, title) a cell names: `file` › “title”, and further › “title” of the same file. */
function citations(text) {
	const found = [];
	for (const line of text.split('\n').filter((l) => l.startsWith('|'))) {
		for (const cell of line.split(' | ')) {
			let file;
			for (const match of cell.matchAll(/`(test\/[^`]+\.test\.mjs)`|› “([^”]+)”/g)) {
				if (match[1]) file = match[1];
				else found.push({ file, title: match[2] });
			}
		}
	}
	return found;
}

/** A test file's source with string escapes undone, as its titles read. */
const sourceOf = (file) => fs.readFileSync(path.join(ROOT_DIR, file), 'utf8').replace(/\\(['"`])/g, '$1');

describe('docs/seams.md', () => {
	const cited = citations(table);

	test('every cell of the three tables names a test', () => {
		const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| What') && !l.startsWith('| State') && !/^\|[-|]+\|$/.test(l));
		const byTable = table.split('\n## ').slice(1).map((section) => section.split('\n').filter((l) => rows.includes(l)));
		expect(byTable.map((r) => r.length)).toEqual([12, 14, 14]);
		// a cell without a test says why not in a word: "Not applicable", "As the row above", "Same test"...
		for (const row of byTable.flat()) {
			for (const cell of row.split(' | ').slice(1)) expect(cell.trim(), row.slice(0, 60)).not.toBe('');
		}
		expect(cited.length).toBeGreaterThan(50);
	});

	test('every test it names exists with that title in that file', () => {
		const missing = cited.filter(({ file, title }) => !file || !fs.existsSync(path.join(ROOT_DIR, file)) || !sourceOf(file).includes(title));
		expect(missing).toEqual([]);
	});
});
