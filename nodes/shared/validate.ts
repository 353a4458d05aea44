import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { LIST_PERIODS } from './constants';

// Checks of parameter values at run time: a bad value fails before any request, naming the
// parameter and what is valid.

export type IdKind = 'numeric' | 'text';

/** Older or hand-written workflows hold a plain value instead of a resource locator. */
export function locatorValue(raw: unknown): unknown {
	const isLocator =
		raw !== null &&
		typeof raw === 'object' &&
		!Array.isArray(raw) &&
		('__rl' in raw || 'mode' in raw);
	return isLocator ? (raw as IDataObject).value : raw;
}

/** Checked before any request. */
export function getId(
	this: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	kind: IdKind,
): string {
	return checkId.call(
		this,
		locatorValue(this.getNodeParameter(name, itemIndex, '')),
		label,
		kind,
		itemIndex,
	);
}

export function checkId(
	this: IExecuteFunctions,
	value: unknown,
	label: string,
	kind: IdKind,
	itemIndex: number,
): string {
	if (value !== null && typeof value === 'object') {
		throw new NodeOperationError(
			this.getNode(),
			`${label} must be text, got ${Array.isArray(value) ? 'a list' : 'an object'}`,
			{
				itemIndex,
				description: `Map a single ID into "${label}", for example {{ $json.id }}.`,
			},
		);
	}
	const id = value === undefined || value === null ? '' : String(value).trim();
	// A path segment of "." or ".." would change which endpoint is called.
	if (id === '.' || id === '..')
		throw new NodeOperationError(this.getNode(), `${label} cannot be "${id}"`, { itemIndex });
	if (id === '') {
		throw new NodeOperationError(this.getNode(), `${label} is empty`, {
			itemIndex,
			description: `Set "${label}"${kind === 'numeric' ? ' to a numeric ID such as 12345' : ''}.`,
		});
	}
	if (kind === 'numeric' && !/^\d+$/.test(id)) {
		throw new NodeOperationError(
			this.getNode(),
			`${label} must be a numeric string such as "12345", got "${id}"`,
			{ itemIndex },
		);
	}
	return id;
}

export function requireText(
	this: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	const value = String(this.getNodeParameter(name, itemIndex, '') ?? '').trim();
	if (value === '') {
		throw new NodeOperationError(this.getNode(), `${label} is required`, {
			itemIndex,
			description: `Set "${label}".`,
		});
	}
	return value;
}

export function checkColor(this: IExecuteFunctions, value: unknown, itemIndex: number): string {
	const color = String(value ?? '').trim();
	if (!/^#[0-9a-fA-F]{6}$/.test(color)) {
		throw new NodeOperationError(
			this.getNode(),
			`Color must have the form #RRGGBB (for example #1A73E8), got "${color}"`,
			{ itemIndex },
		);
	}
	return color;
}

export function checkOneOf<T extends string>(
	this: IExecuteFunctions,
	value: unknown,
	allowed: readonly T[],
	label: string,
	itemIndex: number,
): T {
	if (!allowed.includes(value as T)) {
		throw new NodeOperationError(
			this.getNode(),
			`${label} must be one of ${allowed.join(', ')}; got "${String(value)}"`,
			{ itemIndex },
		);
	}
	return value as T;
}

export function readReturnAll(
	this: IExecuteFunctions,
	itemIndex: number,
): { returnAll: boolean; limit: number } {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? 0 : (this.getNodeParameter('limit', itemIndex, 50) as number);
	if (!returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(
			this.getNode(),
			`Limit must be a whole number of at least 1, got ${limit}`,
			{ itemIndex },
		);
	}
	return { returnAll, limit };
}

/** An update must change something: fails with `hint` (what to add) when `body` is empty. */
export function requireChanges(
	this: IExecuteFunctions,
	body: IDataObject,
	itemIndex: number,
	hint: string,
): IDataObject {
	if (Object.keys(body).length === 0)
		throw new NodeOperationError(this.getNode(), 'Nothing to update', {
			itemIndex,
			description: hint,
		});
	return body;
}

type Period = (typeof LIST_PERIODS)[number];

/** Pure: a period as a person or an AI agent writes it ("Past Week", "last 7 days") → `week`. */
export function periodOf(value: unknown): Period | undefined {
	if (typeof value !== 'string') return undefined;
	const words = value
		.trim()
		.toLowerCase()
		.replace(/[\s_-]+/g, ' ')
		.replace(/^(in |within |during )?(the )?(this|past|last|previous) /, '')
		.trim();
	const aliases: Record<string, Period> = {
		'7 days': 'week',
		'30 days': 'month',
		'6 months': 'half_year',
		'six months': 'half_year',
		'half a year': 'half_year',
		'12 months': 'year',
		'365 days': 'year',
	};
	const key = words.replace(/ /g, '_');
	return (LIST_PERIODS as readonly string[]).includes(key) ? (key as Period) : aliases[words];
}

/** One it cannot read fails before any request, naming `label` and the values. */
export function checkPeriod(
	this: IExecuteFunctions,
	value: unknown,
	label: string,
	itemIndex: number,
): Period {
	const period = periodOf(value);
	if (period) return period;
	throw new NodeOperationError(
		this.getNode(),
		`${label} must be one of ${LIST_PERIODS.join(', ')} (or Past Week, ` +
			`Past Month, Past Half Year, Past Year); got "${String(value)}"`,
		{ itemIndex },
	);
}
