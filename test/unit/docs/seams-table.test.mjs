// docs/seams.md names, in every cell, the test that holds it: each named test must exist, with
// that exact title, in that file, so the table cannot point at a test that was renamed or removed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT_DIR } from '../../setup/paths.mjs';

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
const sourceOf = (file) =>
	fs.readFileSync(path.join(ROOT_DIR, file), 'utf8').replace(/\\(['"`])/g, '$1');

describe('docs/seams.md', () => {
	const cited = citations(table);

	test('every cell of the three tables names the test that holds it, or says why none applies', () => {
		const rows = table
			.split('\n')
			.filter(
				(l) =>
					l.startsWith('| ') &&
					!l.startsWith('| What') &&
					!l.startsWith('| State') &&
					!/^\|[-|]+\|$/.test(l),
			);
		const byTable = table
			.split('\n## ')
			.slice(1)
			.map((section) => section.split('\n').filter((l) => rows.includes(l)));
		expect(byTable.map((r) => r.length)).toEqual([15, 14, 14]);
		// A cell names a test (`file` › “title”), points to one named in its row or the row above
		// ("Same test", "As the row above", "As the first row", "As below"), or says why there is
		// nothing to hold ("Not applicable" / "Not involved" and the reason). A cell that states a
		// behaviour and names no test is a claim nothing holds.
		const cites =
			/`test\/[^`]+\.test\.mjs`|› “[^”]+”|[Ss]ame test|^As the row above\b|^As the first row\b|^As below\b/;
		const notApplicable =
			/^(Not applicable|Not involved)\b: ?\S|^(Not applicable|Not involved) \(\S/;
		const unheld = [];
		for (const [n, section] of table.split('\n## ').slice(1).entries()) {
			const header = (section.split('\n').find((l) => l.startsWith('| What')) ?? '')
				.replace(/^\| | \|$/g, '')
				.split(' | ');
			for (const row of byTable[n]) {
				const cells = row.replace(/^\| | \|$/g, '').split(' | ');
				cells.slice(1).forEach((cell, k) => {
					const text = cell.trim();
					if (!cites.test(text) && !notApplicable.test(text))
						unheld.push(`${section.split('\n')[0]} / ${cells[0]} / ${header[k + 1]}: ${text}`);
				});
			}
		}
		expect(unheld).toEqual([]);
		expect(cited.length).toBeGreaterThan(50);
	});

	test('every test it names exists with that title in that file', () => {
		const missing = cited.filter(
			({ file, title }) =>
				!file || !fs.existsSync(path.join(ROOT_DIR, file)) || !sourceOf(file).includes(title),
		);
		expect(missing).toEqual([]);
	});
});
