// docs/seams.md: every cell of the three tables holds a claim a named test checks. A cell either
// names a test (`file` › “title”), points to one named in its row or the row above ("Same test",
// "As the row above", "As the first row", "As below"), or says why there is nothing to hold:
// "Not applicable" / "Not involved" with the reason. A cell that states a behaviour ("Unchanged.",
// "Per run.", "Gone: read again.") and names no test is a claim nothing holds.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ROOT_DIR } from '../setup/paths.mjs';

const doc = fs.readFileSync(path.join(ROOT_DIR, 'docs/seams.md'), 'utf8');
const CITES = /`test\/[^`]+\.test\.mjs`|› “[^”]+”|[Ss]ame test|^As the row above\b|^As the first row\b|^As below\b/;
const NOT_APPLICABLE = /^(Not applicable|Not involved)\b/;

test('every cell of the seams tables names the test that holds it, or says why none applies', () => {
	const unheld = [];
	for (const section of doc.split('\n## ').slice(1)) {
		const node = section.split('\n')[0];
		const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| What') && !/^\|[-|]+\|$/.test(l));
		const header = (section.split('\n').find((l) => l.startsWith('| What')) ?? '').replace(/^\| | \|$/g, '').split(' | ');
		for (const row of rows) {
			const cells = row.replace(/^\| | \|$/g, '').split(' | ');
			cells.slice(1).forEach((cell, k) => {
				const text = cell.trim();
				if (!CITES.test(text) && !NOT_APPLICABLE.test(text)) unheld.push(`${node} / ${cells[0]} / ${(header[k + 1] ?? '').trim()}: ${text}`);
			});
		}
	}
	expect(unheld).toEqual([]);
});
