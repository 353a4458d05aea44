// docs/real-api.md names, for every open point of the real API, the test that holds what the
// package does: each named test must exist, with that exact title, in that file, so the table
// cannot point at a test that was renamed or removed, and no row may state a behaviour without one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT_DIR } from '../../setup/paths.mjs';

const page = fs.readFileSync(path.join(ROOT_DIR, 'docs/real-api.md'), 'utf8');
const sections = page.split('\n## ').slice(1);
const rowsOf = (section) =>
	section
		.split('\n')
		.filter((l) => l.startsWith('| ') && !/^\| (Point|Field|What) /.test(l))
		.map((l) => l.replace(/^\| | \|$/g, '').split(' | '));
const tables = sections.filter((s) => s.includes('\n|---'));

/** Every (file, title) a cell names: `file` › “title”, and further › “title” of the same file. */
function citations(cell) {
	const found = [];
	let file;
	for (const match of cell.matchAll(/`(test\/[^`]+\.test\.mjs)`|› “([^”]+)”/g)) {
		if (match[1]) file = match[1];
		else found.push({ file, title: match[2] });
	}
	return found;
}

const sourceOf = (file) =>
	fs.readFileSync(path.join(ROOT_DIR, file), 'utf8').replace(/\\(['"`])/g, '$1');

describe('docs/real-api.md', () => {
	test('it has a row for each of the 22 "not shown" points of the spec, the loosely typed fields and the rest', () => {
		expect(tables.map((t) => t.split('\n')[0])).toEqual([
			'The spec\'s "not shown" points',
			'Fields the SDK types loosely',
			'What real services do beyond the spec',
		]);
		expect(tables.map((t) => rowsOf(t).length)).toEqual([22, 10, 4]);
	});

	test('every row names the test that holds it, or says why none applies', () => {
		const unheld = [];
		for (const table of tables)
			for (const cells of rowsOf(table)) {
				const held = cells.at(-1).trim();
				const cites = citations(held).length > 0 || /^As the first row\b/.test(held);
				const notApplicable = /^Not applicable: \S/.test(held);
				if (!cites && !notApplicable) unheld.push(`${cells[0]}: ${held}`);
			}
		expect(unheld).toEqual([]);
	});

	test('every test it names exists with that title in that file', () => {
		const cited = tables.flatMap((t) => rowsOf(t).flatMap((cells) => citations(cells.at(-1))));
		expect(cited.length).toBeGreaterThan(30);
		const missing = cited.filter(
			({ file, title }) =>
				!file || !fs.existsSync(path.join(ROOT_DIR, file)) || !sourceOf(file).includes(title),
		);
		expect(missing).toEqual([]);
	});
});
