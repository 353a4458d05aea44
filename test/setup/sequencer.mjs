// The end-to-end files that take longest start first, so that two running at a time end together.
// On a fresh clone vitest knows no durations and starts the largest files first, which left
// catch-up-interval (about five minutes of waiting for n8n's cron) to run alone at the end.
import { BaseSequencer } from 'vitest/node';

const FIRST = ['e2e/catch-up-interval.test.mjs', 'e2e/editor.test.mjs', 'e2e/n8n.test.mjs'];
const rank = (spec) => {
	const index = FIRST.findIndex((file) => spec.moduleId.endsWith(`/test/${file}`));
	return index === -1 ? FIRST.length : index;
};

export default class LongestFirst extends BaseSequencer {
	async sort(files) {
		const sorted = await super.sort(files);
		return sorted
			.map((spec, order) => ({ spec, order }))
			.sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
			.map(({ spec }) => spec);
	}
}
