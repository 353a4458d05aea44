import type { IDataObject } from 'n8n-workflow';

import type { Query } from './query';

/** An exclusive partition of a query the API supports: every item matches exactly one value. */
export interface SplitDimension {
	param: string;
	values: readonly string[];
	/** Lets a page of items estimate part sizes. */
	sampleValue?: (item: IDataObject) => string | undefined;
}

/**
 * Pure: one part per value of the first dimension from `from` on with two values or more, so each
 * part reaches deeper. `next`: the dimension to divide a part by further.
 */
export function divideQuery(
	query: Query,
	dimensions: readonly SplitDimension[],
	from = 0,
): { param: string; parts: Query[]; next: number } | undefined {
	for (let d = from; d < dimensions.length; d++) {
		const { param, values: all } = dimensions[d];
		const chosen = query[param];
		const unset =
			chosen === undefined ||
			chosen === null ||
			chosen === '' ||
			(Array.isArray(chosen) && chosen.length === 0);
		const values = unset ? all : Array.isArray(chosen) ? chosen : [String(chosen)];
		if (values.length < 2) continue;
		return { param, parts: values.map((value) => ({ ...query, [param]: [value] })), next: d + 1 };
	}
	return undefined;
}

/** A dimension whose values in a sample are this unknown is no guide to part sizes. */
const MAX_UNKNOWN_SHARE = 0.2;
/** Fewer sample items than this in a group say nothing about how it divides. */
const MIN_SAMPLE = 8;
/** A split that leaves more than this share on one side is not worth a part. */
const MAX_SIDE_SHARE = 0.85;

interface Group {
	query: Query;
	sample: IDataObject[];
	estimate: number;
	done: boolean;
}

/**
 * Pure: up to `parts` exclusive parts of about equal size, judged from a sample (the first page).
 * Values are grouped (the API takes a list per filter), so a skewed mailbox still divides. The
 * sample only guides: the caller checks that the parts' counts add up to the whole.
 */
export function planParts(
	query: Query,
	sample: IDataObject[],
	total: number,
	dimensions: readonly SplitDimension[],
	parts: number,
): Array<{ query: Query; estimate: number }> {
	const groups: Group[] = [{ query, sample, estimate: total, done: false }];
	while (groups.length < parts) {
		const open = groups.filter((g) => !g.done);
		if (open.length === 0) break;
		const group = open.reduce((a, b) => (b.estimate > a.estimate ? b : a));
		const halves = bestHalves(group, dimensions);
		if (!halves) {
			group.done = true;
			continue;
		}
		groups.splice(groups.indexOf(group), 1, ...halves);
	}
	return groups.map((g) => ({ query: g.query, estimate: Math.round(g.estimate) }));
}

function bestHalves(group: Group, dimensions: readonly SplitDimension[]): Group[] | undefined {
	if (group.sample.length < MIN_SAMPLE) return undefined;
	let best: { share: number; halves: Group[] } | undefined;
	for (const dimension of dimensions) {
		if (!dimension.sampleValue) continue;
		const chosen = group.query[dimension.param];
		const unset =
			chosen === undefined || chosen === '' || (Array.isArray(chosen) && chosen.length === 0);
		const allowed = unset ? [...dimension.values] : Array.isArray(chosen) ? chosen.map(String) : [];
		if (allowed.length < 2) continue;
		const counts = new Map<string, number>(allowed.map((v) => [v, 0]));
		let unknown = 0;
		for (const item of group.sample) {
			const value = dimension.sampleValue(item)?.toLowerCase();
			if (value !== undefined && counts.has(value)) counts.set(value, counts.get(value)! + 1);
			else unknown++;
		}
		if (unknown > MAX_UNKNOWN_SHARE * group.sample.length) continue;
		// Greedy balance: the most frequent values first, each to the lighter side.
		const sides: Array<{ values: string[]; count: number }> = [
			{ values: [], count: 0 },
			{ values: [], count: 0 },
		];
		for (const [value, count] of [...counts].sort((a, b) => b[1] - a[1])) {
			const side =
				sides[0].values.length === 0
					? sides[0]
					: sides[1].values.length === 0
						? sides[1]
						: sides[0].count <= sides[1].count
							? sides[0]
							: sides[1];
			side.values.push(value);
			side.count += count;
		}
		const known = sides[0].count + sides[1].count;
		if (known === 0) continue;
		const share = Math.max(sides[0].count, sides[1].count) / known;
		if (share > MAX_SIDE_SHARE || (best && share >= best.share)) continue;
		best = {
			share,
			halves: sides.map((side) => {
				const values = new Set(side.values);
				return {
					query: { ...group.query, [dimension.param]: allowed.filter((v) => values.has(v)) },
					sample: group.sample.filter((item) =>
						values.has(String(dimension.sampleValue!(item)).toLowerCase()),
					),
					estimate: (group.estimate * side.count) / known,
					done: false,
				};
			}),
		};
	}
	return best?.halves;
}
