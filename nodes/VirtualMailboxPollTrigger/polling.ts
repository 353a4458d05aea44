import type { IDataObject } from 'n8n-workflow';

import { DEPTH_LIMIT, PAGE_SIZE_MAX } from '../shared/constants';
import { MAIL_SPLITS, mailOrder } from '../shared/mail';
import type { Query } from '../shared/transport';

/** What the poll trigger remembers between polls (workflow static data), bounded in size. */
export interface PollState extends IDataObject {
	/** The event and normalized query the state belongs to (fingerprintOf); another one primes. */
	fingerprint?: string;
	primed?: boolean;
	/**
	 * New mail: ids of the newest items already emitted or seen, in list order (newest first): a
	 * prefix of the list, so an id below the first seen one and above the last is new if not here.
	 */
	seenIds?: string[];
	/** New mail: the query's total_count at the last poll. */
	total?: number;
	/** New mail: arrival time of the newest item seen; anything older is not new. */
	newestArrival?: string;
	/** New mail: parts of the list still to read after a poll reached MAX_POLL_PAGES, oldest part first. */
	backlog?: BacklogPart[];
	/** New mail: for each backlog's stopArrival, the ids seen when it began (where it ends); shared by its parts. */
	backlogStops?: Record<string, string[]>;
	/** New mail: arrival dates of backlog mail the API could not list; the next poll reports it once. */
	unreachable?: { from?: string; to: string };
	/** Scans: pending (in process or restoring) scan id → mail id, as of the last poll. */
	pending?: Record<string, string>;
	/** Scans: ids of completions already emitted. */
	emitted?: string[];
	/** Scans: created_at of the newest scan seen; a scan created before it (less SCAN_OVERLAP_MS) is not new. */
	newestScanCreated?: string;
	/** Scans: ids of the scans seen that were created within SCAN_OVERLAP_MS of the newest one. */
	newestScanIds?: string[];
}

/**
 * Pure: what the state belongs to: the event and the query with empty filters left out, keys and
 * list values sorted, so that only a change of what is read changes it.
 */
export function fingerprintOf(event: string, query: Query): string {
	const normalized: Record<string, string | string[]> = {};
	for (const key of Object.keys(query).sort()) {
		const value = query[key];
		if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
		normalized[key] = Array.isArray(value) ? [...value].map(String).sort() : String(value);
	}
	return JSON.stringify([event, normalized]);
}

export const MAX_SEEN = 1_000;
export const MAX_PENDING = 5_000;
/** Pages of new mail (and backlog) one New Mail poll reads at most: 1,000 items. */
export const MAX_POLL_PAGES = 10;
/** Pages a poll reads below the first seen item, looking for mail logged late. */
export const MAX_LATE_PAGES = 10;
/**
 * A scan may show up in the list a little after scans created later than it (if the server stamps
 * created_at before the scan is visible to a list), so scans created this long before the newest
 * one seen still count as new unless seen already.
 */
export const SCAN_OVERLAP_MS = 10 * 60_000;
/** GET /v1/scans pages one poll reads at most: as deep as the API lists. */
export const MAX_SCAN_PAGES = DEPTH_LIMIT / PAGE_SIZE_MAX;

/**
 * Pure: walk newest-first pages until an item already seen. Returns the new items (newest first)
 * and whether to stop. An item older than the newest one seen before is not new either (it can
 * only be an old item that fell out of the bounded memory).
 */
export function takeNew(page: IDataObject[], seen: ReadonlySet<string>, newestArrival?: string): { fresh: IDataObject[]; stop: boolean } {
	const fresh: IDataObject[] = [];
	const watermark = newestArrival ? Date.parse(newestArrival) : Number.NaN;
	for (const item of page) {
		const id = String(item.id);
		const arrived = Date.parse(String(item.arrival_date ?? ''));
		if (seen.has(id) || (!Number.isNaN(watermark) && !Number.isNaN(arrived) && arrived < watermark)) return { fresh, stop: true };
		fresh.push(item);
	}
	return { fresh, stop: false };
}

/**
 * Pure: below the first seen item, the items not seen before are mail logged late (with an earlier
 * arrival date). Stops when `wanted` are found or at `floor`, the deepest remembered id (below it
 * an unseen id may just be old). Returns them (newest first), every id passed, and whether to stop.
 */
export function takeLate(page: IDataObject[], seen: ReadonlySet<string>, floor: string | undefined, wanted: number): { late: IDataObject[]; walked: string[]; done: boolean } {
	const late: IDataObject[] = [];
	const walked: string[] = [];
	for (const item of page) {
		const id = String(item.id);
		if (!seen.has(id)) {
			late.push(item);
			walked.push(id);
			if (late.length >= wanted) return { late, walked, done: true };
			continue;
		}
		walked.push(id);
		if (id === floor) return { late, walked, done: true };
	}
	return { late, walked, done: floor === undefined };
}

/**
 * Where a New Mail poll stopped reading a backlog: the API's cursor for the next page, the last
 * item read (items listed at or above it were read: a cursor that counts positions lists some
 * again after new mail arrives), and what ends the backlog: the mail seen before it began, older
 * than or as old as stopArrival (its ids are in PollState.backlogStops under that key).
 */
export interface BacklogPart extends IDataObject {
	/** The next page's cursor; none: the part's first page. */
	cursor?: string;
	after: { id: string; arrival_date: string };
	/** Arrival of the newest mail seen before the backlog began ('' if none had one). */
	stopArrival: string;
	/** Filters added to the trigger's query for this part (a part past the depth limit is divided). */
	filters?: Query;
	/** Index in MAIL_SPLITS of the next filter to divide this part by. */
	nextSplit?: number;
}

const newestFirst = mailOrder('newest');

/**
 * Pure: a backlog page (newest first). Skips what was read already, takes items until one seen
 * before the backlog began (or older than the newest of those). Returns them (newest first) and
 * whether the backlog part is done.
 */
export function takeBacklog(page: IDataObject[], part: BacklogPart, stopIds: ReadonlySet<string>): { items: IDataObject[]; done: boolean } {
	const after = part.after as IDataObject;
	const unread = page.filter((item) => newestFirst(item, after) > 0);
	const taken = takeNew(unread, stopIds, part.stopArrival || undefined);
	return { items: taken.fresh, done: taken.stop };
}

/**
 * Pure: a backlog part the API will not page further, divided by the next filter of MAIL_SPLITS
 * that has two values or more (the trigger's own values of it, else all): each division lists
 * fewer items, so its end of the backlog is within reach. Each starts on its first page and skips
 * what was read. None left: undefined (the rest cannot be listed).
 */
export function divideBacklog(part: BacklogPart, query: Query): BacklogPart[] | undefined {
	for (let d = part.nextSplit ?? 0; d < MAIL_SPLITS.length; d++) {
		const { param, values: all } = MAIL_SPLITS[d];
		const chosen = part.filters?.[param] ?? query[param];
		const values = Array.isArray(chosen) && chosen.length > 0 ? (chosen as string[]) : all;
		if (values.length < 2) continue;
		return values.map((value) => ({ ...part, cursor: undefined, filters: { ...part.filters, [param]: [value] }, nextSplit: d + 1 }));
	}
	return undefined;
}

/** Pure: remember `ids` in front of `previous`, without repeats, at most `max`. */
export function remember(ids: string[], previous: string[] = [], max = MAX_SEEN): string[] {
	return [...new Set([...ids, ...previous])].slice(0, max);
}

/** Which scans are new: created at or after `cut` (ms; NaN when no scan was seen before) and not in `seen`. */
export interface ScanWindow {
	cut: number;
	seen: ReadonlySet<string>;
}

export function newScanWindow(newestCreated: string | undefined, seenIds: string[]): ScanWindow {
	return { cut: newestCreated ? Date.parse(newestCreated) - SCAN_OVERLAP_MS : Number.NaN, seen: new Set(seenIds) };
}

/** What one poll walks with: the scans pending at the last poll and the completions emitted. */
export interface ScanWalk {
	category: string;
	pending: Record<string, string>;
	emitted: ReadonlySet<string>;
	window: ScanWindow;
	/** The first activation: learn the newest scans, emit nothing. */
	priming?: boolean;
}

/** What the walk found so far. */
export interface ScanFindings {
	completed: IDataObject[];
	/** Scans of the category in process or restoring now: id → mail id. */
	pending: Record<string, string>;
	/** Ids of every scan the walk passed. */
	found: Set<string>;
	/** False once created_at rose along the list: it is not newest first, so only its end ends the walk. */
	ordered: boolean;
	newestCreated?: string;
	lastCreated?: number;
	/** Pages read, this one included, since the walk passed every scan that can be new. */
	pagesPastNew?: number;
	/** Ids and creation times of the newest scans passed (what the next poll's window holds). */
	recent?: Array<[string, number]>;
}

/** Pure: nothing found yet; `newestCreated` is the newest scan known before the walk. */
export function scanFindings(newestCreated?: string): ScanFindings {
	return { completed: [], pending: {}, found: new Set(), ordered: true, newestCreated };
}

/** Pure: what the next poll's window starts from: the newest scan found and the ids created near it. */
export function nextScanWindow(findings: ScanFindings): Pick<PollState, 'newestScanCreated' | 'newestScanIds'> {
	return { newestScanCreated: findings.newestCreated, newestScanIds: (findings.recent ?? []).map(([id]) => id).slice(0, MAX_PENDING) };
}

/**
 * Pure: one page of GET /v1/scans, newest created first. A completed scan of the category is
 * emitted if not emitted before and either pending at the last poll or new (requested and finished
 * between two polls). Records the pending ones, the ids passed, the newest scans and the list order.
 */
export function examineScans(page: IDataObject[], walk: ScanWalk, findings: ScanFindings): void {
	for (const scan of page) {
		const id = String(scan.id);
		const created = Date.parse(String(scan.created_at ?? ''));
		if (findings.found.has(id)) continue; // listed again after a scan was added above it mid-walk
		findings.found.add(id);
		if (Number.isNaN(created) || (findings.lastCreated !== undefined && created > findings.lastCreated)) findings.ordered = false;
		if (!Number.isNaN(created)) {
			findings.lastCreated = created;
			if (!findings.newestCreated || created > Date.parse(findings.newestCreated)) findings.newestCreated = String(scan.created_at);
			(findings.recent ??= []).push([id, created]);
		}
		if (scan.type !== walk.category) continue;
		if (scan.status === 'IN_PROCESS' || scan.status === 'RESTORING') {
			findings.pending[id] = String(scan.mail_id);
			continue;
		}
		const isNew = !walk.window.seen.has(id) && !Number.isNaN(created) && (Number.isNaN(walk.window.cut) || created >= walk.window.cut);
		if (!walk.priming && scan.status === 'COMPLETED' && !walk.emitted.has(id) && (id in walk.pending || isNew)) findings.completed.push(scan);
	}
	if (findings.ordered && findings.lastCreated !== undefined && findings.lastCreated < walk.window.cut) findings.pagesPastNew = (findings.pagesPastNew ?? 0) + 1;
	const newest = findings.newestCreated ? Date.parse(findings.newestCreated) - SCAN_OVERLAP_MS : Number.NaN;
	findings.recent = (findings.recent ?? []).filter(([, created]) => !(created < newest));
}

/**
 * Pure: the walk has passed every scan that can be new, and reading on for the scans pending last
 * time that it has not passed yet would cost more than asking for each by id (a scan in process
 * for long sits deep in the list): it reads one more page while more of them are missing than it
 * has read pages past the new scans.
 */
export function scanWalkDone(walk: ScanWalk, findings: ScanFindings): boolean {
	if (!findings.pagesPastNew) return false;
	const missing = Object.keys(walk.pending).filter((id) => !findings.found.has(id)).length;
	return missing < findings.pagesPastNew;
}
