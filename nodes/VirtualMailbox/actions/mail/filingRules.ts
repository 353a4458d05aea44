import type { IDataObject } from 'n8n-workflow';
import * as workflow from 'n8n-workflow';

import { MAIL_TYPES } from '../../../shared/constants';
import { optionsOf } from '../../../shared/descriptions';
import {
	canonicalMailStatus,
	canonicalMailType,
	canonicalScanStatus,
} from '../../../shared/values';

// Pure: filing rules as the File by Rules operation's parameters hold them → checked rules, and
// which rule a mail item's facts match. Tests call these directly.

export type Field =
	| 'sender'
	| 'recipient'
	| 'mailType'
	| 'label'
	| 'summary'
	| 'weight'
	| 'anyText';
export type TextComparison =
	| 'contains'
	| 'containsWord'
	| 'is'
	| 'startsWith'
	| 'isOneOf'
	| 'matchesPattern';
export type NumberComparison = 'greaterThan' | 'lessThan' | 'atLeast' | 'atMost' | 'equals';

export const FIELDS: readonly Field[] = [
	'sender',
	'recipient',
	'mailType',
	'label',
	'summary',
	'weight',
	'anyText',
];
const TEXT_COMPARISONS: readonly TextComparison[] = [
	'contains',
	'containsWord',
	'is',
	'startsWith',
	'isOneOf',
	'matchesPattern',
];
const NUMBER_COMPARISONS: readonly NumberComparison[] = [
	'greaterThan',
	'lessThan',
	'atLeast',
	'atMost',
	'equals',
];

/** `undefined`: the item does not say (fetch it); `null`: the mail item has none. */
export interface Facts {
	sender?: string | null;
	recipient?: string | null;
	mailType?: string | null;
	label?: string | null;
	summary?: string | null;
	weight?: number | null;
	/** The scan behind the label and summary, when the item names one. */
	scan?: { id: string; completed: boolean } | null;
	/** Facts the API refused to give, with why: rules that need them are skipped, saying so. */
	unavailable?: Partial<Record<keyof Facts, string>>;
}

export interface Action {
	folder: { mode: string; value: string; cachedResultName?: string };
	markRead: boolean;
	archive: boolean;
}

export interface Rule {
	position: number;
	name: string;
	field: Field;
	test: (value: string | number) => boolean;
	/** What the rule checks, in words: `sender contains "IRS"`. */
	says: string;
	action: Action;
}

export class RuleError extends Error {
	constructor(
		readonly position: number,
		message: string,
	) {
		super(`Rule ${position}: ${message}`);
	}
}

const FIELD_WORDS: Record<Field, string> = {
	sender: 'sender',
	recipient: 'recipient',
	mailType: 'mail type',
	label: 'scan label',
	summary: 'scan summary',
	weight: 'weight',
	anyText: 'any text',
};
const TEXT_WORDS: Record<TextComparison, string> = {
	contains: 'contains',
	containsWord: 'contains the word',
	is: 'is',
	startsWith: 'starts with',
	isOneOf: 'is one of',
	matchesPattern: 'matches',
};
const NUMBER_WORDS: Record<NumberComparison, string> = {
	greaterThan: '>',
	lessThan: '<',
	atLeast: '≥',
	atMost: '≤',
	equals: '=',
};

const ANY_TEXT: readonly Field[] = ['sender', 'recipient', 'mailType', 'label', 'summary'];

export function factsNeeded(field: Field): Array<keyof Facts> {
	return field === 'anyText' ? (ANY_TEXT as Array<keyof Facts>) : [field as keyof Facts];
}

/** A mail type as the Mail Types picker and the docs name it: `large_letter` → "Large letter". */
const TYPE_LABELS = new Map(optionsOf(MAIL_TYPES).map((o) => [o.value, o.name]));
const typeLabel = (type: string) => TYPE_LABELS.get(type) ?? optionsOf([type])[0].name;

/** Any Text also finds a mail type by its name ("large letter"). */
function valuesFor(field: Field, facts: Facts): Array<string | number> {
	const values: Array<string | number> = [];
	for (const fact of factsNeeded(field)) {
		const value = facts[fact];
		if (value === null || value === undefined || typeof value === 'object') continue;
		values.push(value);
		if (field === 'anyText' && fact === 'mailType') values.push(typeLabel(String(value)));
	}
	return values;
}

/**
 * Pure: a yes/no parameter → true or false. An expression may give the text "true" or "false" (a
 * form field, a query string); anything else throws a RuleError naming `label`, so a preview meant
 * by "yes" never writes. Unset or empty: `fallback`.
 */
export function flagOf(raw: unknown, position: number, label: string, fallback = false): boolean {
	if (raw === undefined || raw === null || raw === '') return fallback;
	if (typeof raw === 'boolean') return raw;
	const said = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
	if (said === 'true' || said === 'false') return said === 'true';
	throw new RuleError(position, `${label} must be true or false, got "${String(raw)}"`);
}

/** Pure: a folder parameter → an action's folder; a RuleError for an empty or malformed one. */
export function checkFolder(raw: unknown, position: number, label = 'Folder'): Action['folder'] {
	const locator: IDataObject =
		raw && typeof raw === 'object' && !Array.isArray(raw)
			? (raw as IDataObject)
			: { mode: 'id', value: raw as string };
	const mode = String(locator.mode ?? 'id');
	const value =
		locator.value === undefined || locator.value === null ? '' : String(locator.value).trim();
	if (mode === 'name') {
		if (value === '')
			throw new RuleError(position, `the ${label.toLowerCase()} name is empty (after expressions)`);
	} else if (value === '') {
		throw new RuleError(position, `${label} is empty: pick a folder, or give its ID or name`);
	} else if (!/^\d+$/.test(value)) {
		throw new RuleError(position, `${label} ID must be a number such as 12, got "${value}"`);
	}
	return {
		mode,
		value,
		...(typeof locator.cachedResultName === 'string'
			? { cachedResultName: locator.cachedResultName }
			: {}),
	};
}

/** Pure: the Rules parameter → checked rules in order; a bad rule throws, naming its position. */
export function parseRules(raw: unknown): Rule[] {
	const list =
		raw && typeof raw === 'object'
			? ((raw as IDataObject).rule as IDataObject[] | undefined)
			: undefined;
	return (Array.isArray(list) ? list : []).map((entry, index) => parseRule(entry ?? {}, index + 1));
}

function parseRule(entry: IDataObject, position: number): Rule {
	const field = (entry.field ?? 'anyText') as Field;
	if (!FIELDS.includes(field))
		throw new RuleError(
			position,
			`Field must be one of ${FIELDS.join(', ')}; got "${String(field)}"`,
		);
	const action: Action = {
		folder: checkFolder(entry.folder, position),
		markRead: flagOf(entry.markRead, position, 'Mark Read'),
		archive: flagOf(entry.archive, position, 'Archive'),
	};
	const name = String(entry.name ?? '').trim();
	const base = { position, name, field, action };
	if (field === 'mailType') {
		const types = (
			Array.isArray(entry.mailTypes)
				? entry.mailTypes
				: typeof entry.mailTypes === 'string'
					? entry.mailTypes.split(',')
					: []
		)
			.map((t) => normalizeMailType(String(t)))
			.filter((t): t is string => Boolean(t));
		if (types.length === 0)
			throw new RuleError(
				position,
				`Mail Types is empty: choose at least one (${MAIL_TYPES.join(', ')})`,
			);
		const unknown = types.filter((t) => !(MAIL_TYPES as readonly string[]).includes(t));
		if (unknown.length > 0)
			throw new RuleError(
				position,
				`"${unknown.join('", "')}" is not a mail type; the API's are ${MAIL_TYPES.join(', ')}`,
			);
		return {
			...base,
			test: (value) => types.includes(String(value)),
			says: `mail type is one of ${types.join(', ')}`,
		};
	}
	if (field === 'weight') {
		const comparison = (entry.weightComparison ?? 'greaterThan') as NumberComparison;
		if (!NUMBER_COMPARISONS.includes(comparison))
			throw new RuleError(
				position,
				`Comparison must be one of ${NUMBER_COMPARISONS.join(', ')}; got "${String(comparison)}"`,
			);
		const raw = entry.weight;
		const limit =
			typeof raw === 'number'
				? raw
				: typeof raw === 'string' && raw.trim() !== ''
					? Number(raw)
					: NaN;
		if (!Number.isFinite(limit))
			throw new RuleError(
				position,
				`Weight must be a number of pounds, got "${String(raw ?? '')}"`,
			);
		const compare: Record<NumberComparison, (w: number) => boolean> = {
			greaterThan: (w) => w > limit,
			lessThan: (w) => w < limit,
			atLeast: (w) => w >= limit,
			atMost: (w) => w <= limit,
			equals: (w) => w === limit,
		};
		return {
			...base,
			test: (value) => compare[comparison](Number(value)),
			says: `weight ${NUMBER_WORDS[comparison]} ${limit} lb`,
		};
	}
	const comparison = (entry.comparison ?? 'containsWord') as TextComparison;
	if (!TEXT_COMPARISONS.includes(comparison))
		throw new RuleError(
			position,
			`Comparison must be one of ${TEXT_COMPARISONS.join(', ')}; got "${String(comparison)}"`,
		);
	const caseSensitive = flagOf(entry.caseSensitive, position, 'Case Sensitive');
	const value = entry.value === undefined || entry.value === null ? '' : String(entry.value);
	const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
	if (value.trim() === '')
		throw new RuleError(position, 'Value is empty (after expressions): give the text to look for');
	let test: (text: string) => boolean;
	let shown = `"${value}"`;
	if (comparison === 'matchesPattern') {
		// As JavaScript and n8n's own regex comparisons take it: a plain pattern, or /pattern/flags.
		const literal = parsePattern(value.trim());
		const flags = [
			...new Set(`${literal.flags.replace(/[gy]/g, '')}${caseSensitive ? '' : 'i'}`),
		].join('');
		let problem: Error | undefined;
		try {
			new RegExp(literal.source, flags);
		} catch (error) {
			problem = error as Error;
		}
		if (problem)
			throw new RuleError(
				position,
				`the pattern /${literal.source}/ does not compile: ${problem.message}`,
			);
		test = (text) => {
			let outcome: boolean | Error;
			try {
				outcome = regexTest(literal.source, text, flags);
			} catch (error) {
				outcome = error as Error;
			}
			if (outcome instanceof Error) {
				const stopped = /timed out/i.test(outcome.message);
				throw new RuleError(
					position,
					`the pattern /${literal.source}/ ${stopped ? 'took too long on this mail item and was stopped (it backtracks ' + 'without end: simplify a repeat inside a repeat, such as (a+)+)' : `failed: ${outcome.message}`}`,
				);
			}
			return outcome;
		};
		shown = `/${literal.source}/`;
	} else if (comparison === 'containsWord') {
		// Whole words: "IRS" is in "IRS Ogden", not in "First National Bank".
		const escaped = value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		const word = new RegExp(
			`(?:^|[^\\p{L}\\p{N}])${escaped}(?:$|[^\\p{L}\\p{N}])`,
			caseSensitive ? 'u' : 'iu',
		);
		test = (text) => word.test(text);
	} else if (comparison === 'isOneOf') {
		const options = value
			.split(/[,\n]/)
			.map((v) => fold(v.trim()))
			.filter((v) => v !== '');
		if (options.length === 0)
			throw new RuleError(position, 'Value lists nothing: give the values separated by commas');
		test = (text) => options.includes(fold(text.trim()));
		shown = options.map((o) => `"${o}"`).join(', ');
	} else {
		const wanted = fold(value.trim());
		test =
			comparison === 'contains'
				? (text) => fold(text).includes(wanted)
				: comparison === 'startsWith'
					? (text) => fold(text.trimStart()).startsWith(wanted)
					: (text) => fold(text.trim()) === wanted;
	}
	return {
		...base,
		test: (text) => test(String(text)),
		says:
			`${FIELD_WORDS[field]} ${TEXT_WORDS[comparison]} ` +
			`${shown}${caseSensitive ? ' (case sensitive)' : ''}`,
	};
}

type SafeRegex = { test(pattern: string, input: string, flags?: string): boolean };
const n8nRegex = (workflow as unknown as { safeRegex?: SafeRegex }).safeRegex;
const n8nLiteral = (
	workflow as unknown as {
		parseRegexLiteral?: (value: string) => { source: string; flags: string };
	}
).parseRegexLiteral;

/** `/pattern/flags` → its source and flags, as n8n reads it; else the pattern itself. */
function parsePattern(value: string): { source: string; flags: string } {
	if (n8nLiteral) return n8nLiteral(value);
	const match = /^\/(.*?)\/([gimsuy]*)$/.exec(value);
	return match ? { source: match[1], flags: match[2] } : { source: value, flags: '' };
}

/** n8n's safe regex stops a pattern that backtracks without end after 250 ms. */
function regexTest(source: string, text: string, flags: string): boolean {
	return n8nRegex ? n8nRegex.test(source, text, flags) : new RegExp(source, flags).test(text);
}

/** REST's mail type for any spelling an output carries (`LARGELETTER`, `Large letter`). */
export function normalizeMailType(value: unknown): string | null {
	if (typeof value !== 'string' || value.trim() === '') return null;
	return String(canonicalMailType(value));
}

const isCompletedStatus = (value: unknown) => canonicalScanStatus(value) === 'COMPLETED';

const text = (value: unknown): string | null | undefined =>
	value === undefined
		? undefined
		: typeof value === 'string'
			? value.trim() === ''
				? null
				: value
			: value === null
				? null
				: String(value);
const summaryText = (value: unknown): string | null | undefined => {
	if (value === undefined) return undefined;
	if (Array.isArray(value)) return value.length > 0 ? value.map(String).join('\n') : null;
	return text(value);
};
const weightOf = (value: unknown): number | null | undefined => {
	if (value === undefined) return undefined;
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim() !== ''
				? Number(value)
				: NaN;
	return Number.isFinite(number) ? number : null;
};
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const SCAN_TYPES = ['SCAN_REQUEST', 'UNBOXING_REQUEST'];

/** Pure: an output item of File by Rules itself (its mail item is under `mail`). */
export function isFilingOutput(json: IDataObject): boolean {
	return isObject(json.mail) && 'decision' in json && 'matched_rule' in json;
}

/**
 * Pure: a version 1 delivery names the scan by `uuid`; a REST scan and a version 2 delivery have
 * `mail_id` with `type` or `status`, which File by Rules' output and a seeded mail item lack.
 */
export function isScanItem(json: IDataObject): boolean {
	if (isFilingOutput(json)) return false;
	if (json.uuid !== undefined) return true;
	if (json.mail_id === undefined) return false;
	return (
		SCAN_TYPES.includes(String(json.type ?? '').toUpperCase()) ||
		json.status !== undefined ||
		json.current_status !== undefined
	);
}

/** Pure: the item itself, the trigger's fetched `mail_item` or File by Rules' `mail`. */
export function mailItemOf(json: IDataObject): IDataObject | undefined {
	if (isObject(json.mail_item)) return json.mail_item;
	if (isFilingOutput(json)) return json.mail as IDataObject;
	return isScanItem(json) ? undefined : json;
}

/**
 * Pure: the facts an input item states, whichever node and version gave it (a version 1
 * delivery's names and upper-case types too); what it does not carry stays undefined.
 */
export function factsOfItem(json: IDataObject): Facts {
	if (isFilingOutput(json)) return factsOfItem(json.mail as IDataObject);
	const details = isObject(json.mail_item) ? json.mail_item : undefined;
	const source = details ? { ...json, ...details } : json;
	const facts: Facts = {
		sender: text(source.sender_name),
		recipient: text(source.recipient_name),
		mailType: source.mail_type === undefined ? undefined : normalizeMailType(source.mail_type),
		weight: weightOf(source.weight),
	};
	const scanSummary = isObject(json.scan_summary) ? json.scan_summary : undefined;
	// A scan itself (a scan trigger's item or a scan object): its label and summary are its own.
	if (isScanItem(json)) {
		facts.label = text(
			json.label ??
				json.ai_label ??
				scanSummary?.label ??
				(json.label === null || json.ai_label === null ? null : undefined),
		);
		facts.summary = summaryText(
			json.summary ??
				json.ai_summary ??
				scanSummary?.summary ??
				(json.summary === null || json.ai_summary === null ? null : undefined),
		);
		const id = json.uuid ?? json.id;
		const completed = isCompletedStatus(json.status ?? json.current_status);
		if (id !== undefined) facts.scan = { id: String(id), completed };
		// A scan that is not completed has no label or summary yet.
		if (!completed) {
			facts.label ??= null;
			facts.summary ??= null;
		}
		return facts;
	}
	Object.assign(facts, scanFacts(source.scan));
	return facts;
}

/** Where a mail item is and what it is, as far as an item says (undefined: it does not say). */
export interface MailState {
	folderId?: string | null;
	isRead?: boolean;
	/** `mail_status` in its canonical form (`inbox`, `archived` …). */
	status?: string | null;
}

/** Pure: a list entry has `folder_id`, a detail `folder`. */
export function stateOfMail(mail: IDataObject | undefined): MailState {
	if (!mail) return {};
	const folder = mail.folder;
	const folderId =
		mail.folder_id !== undefined
			? mail.folder_id === null || mail.folder_id === ''
				? null
				: String(mail.folder_id)
			: isObject(folder)
				? folder.id === undefined || folder.id === null
					? undefined
					: String(folder.id)
				: folder === null
					? null
					: undefined;
	return {
		folderId,
		isRead: typeof mail.is_read === 'boolean' ? mail.is_read : undefined,
		status:
			typeof mail.mail_status === 'string'
				? String(canonicalMailStatus(mail.mail_status))
				: undefined,
	};
}

/**
 * Pure: the state of the mail item an input item is about, as far as it says. A new-mail delivery
 * (the trigger's `event: new-mail`) is the mail item's arrival: in no folder and unread, unless it
 * carries the fetched mail item. A delivery sent twice is filed again, to the same end.
 */
export function stateOfItem(json: IDataObject): MailState {
	const state = stateOfMail(mailItemOf(json));
	if (json.event !== 'new-mail' || isObject(json.mail_item)) return state;
	return {
		folderId: state.folderId === undefined ? null : state.folderId,
		isRead: state.isRead ?? false,
		status: state.status,
	};
}

/** Pure: with no scan there is no summary either. */
export function scanFacts(scan: unknown): Facts {
	if (scan === undefined) return {};
	if (!isObject(scan)) return { scan: null, label: null, summary: null };
	const id = scan.uuid ?? scan.id;
	return {
		label: text(scan.label ?? null),
		scan: id === undefined ? null : { id: String(id), completed: isCompletedStatus(scan.status) },
		// The summary is not on the mail item: a completed scan's is read from the scan (or is absent).
		...(isCompletedStatus(scan.status) ? {} : { summary: null }),
	};
}

/** Pure: the facts of a GET /v1/mails/{id} answer (mail item detail). */
export function factsOfDetail(detail: IDataObject): Facts {
	return {
		sender: text(detail.sender_name ?? null),
		recipient: text(detail.recipient_name ?? null),
		mailType: normalizeMailType(detail.mail_type),
		weight: weightOf(detail.weight ?? null),
		...scanFacts(detail.scan ?? null),
	};
}

/** Facts from `more` fill what `facts` does not say yet. */
export function mergeFacts(facts: Facts, more: Facts): Facts {
	const out: Facts = { ...facts };
	for (const [key, value] of Object.entries(more) as Array<[keyof Facts, Facts[keyof Facts]]>) {
		if (out[key] === undefined && value !== undefined)
			(out as Record<string, unknown>)[key] = value;
	}
	return out;
}

export interface Skip {
	rule: number;
	name: string;
	reason: string;
}

export type Decision =
	| { kind: 'matched'; rule: Rule; skipped: Skip[] }
	| { kind: 'none'; skipped: Skip[] }
	/** `rule` needs facts the item does not say: fetch them, then decide again. */
	| { kind: 'need'; rule: Rule; facts: Array<keyof Facts> };

const NONE_REASON: Partial<Record<keyof Facts, string>> = {
	sender: 'the mail item has no sender',
	recipient: 'the mail item has no recipient',
	mailType: 'the mail item has no mail type',
	label: 'the mail item has no scan label',
	summary: 'the mail item has no scan summary',
	weight: 'the mail item has no weight',
};

/**
 * Pure: the first rule the facts match, in order. A rule that the known facts do not match and that
 * needs a fact the item does not say stops the decision (`need`); a rule whose fact the mail item
 * does not have is skipped, saying so. A pattern stopped for backtracking throws a RuleError.
 */
export function decide(rules: Rule[], facts: Facts): Decision {
	const skipped: Skip[] = [];
	for (const rule of rules) {
		const needed = factsNeeded(rule.field);
		const values = valuesFor(rule.field, facts);
		// What the item says decides first: a match on a known fact needs nothing more.
		if (values.some((v) => rule.test(v))) return { kind: 'matched', rule, skipped };
		const unknown = needed.filter((f) => facts[f] === undefined);
		if (unknown.length > 0) return { kind: 'need', rule, facts: unknown };
		const unread = needed.filter((f) => facts.unavailable?.[f] !== undefined);
		if (unread.length > 0) {
			// Not a silent non-match: the rule could not look where it should have.
			const reason = unread
				.map((f) => `the ${FIELD_WORDS[f as Field]} could not be read: ${facts.unavailable?.[f]}`)
				.join('; ');
			skipped.push({
				rule: rule.position,
				name: rule.name,
				reason: rule.field === 'anyText' ? `looked in the rest only: ${reason}` : reason,
			});
		} else if (values.length === 0) {
			skipped.push({
				rule: rule.position,
				name: rule.name,
				reason:
					rule.field === 'anyText'
						? 'the mail item has no text to look in'
						: (NONE_REASON[rule.field as keyof Facts] as string),
			});
		}
	}
	return { kind: 'none', skipped };
}

/** Pure: a scan's `mail_id`, else `id` (a version 1 scan delivery's is the mail id). */
export function mailIdOfItem(json: IDataObject): string | undefined {
	const pick = (value: unknown) =>
		typeof value === 'string' || typeof value === 'number'
			? String(value).trim() || undefined
			: undefined;
	if (json.mail_id !== undefined) return pick(json.mail_id);
	if (isObject(json.mail_item) && json.mail_item.id !== undefined) return pick(json.mail_item.id);
	return pick(json.id) ?? (isObject(json.data) ? pick(json.data.id) : undefined);
}
