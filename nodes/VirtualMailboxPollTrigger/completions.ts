import type { IDataObject, INodeExecutionData, IPollFunctions, NodeApiError } from 'n8n-workflow';

import { apiRequest, eachPage, getPage, type Query, segment } from '../shared/transport';
import {
	completionKey,
	createdMs,
	examineScans,
	isCompleted,
	isPending,
	MAX_EMITTED,
	newestOf,
	PENDING_STATUSES,
	type NewestScans,
} from './scans';
import type { PollState } from './state';
import { canonicalRecord, canonicalScanType } from '../shared/values';

export type CompletionEvent = 'scan-completed' | 'open-completed';

/**
 * Scan Completed / Open Completed: each poll lists the scans in process or restoring now, however
 * old, then the newest down to the newest seen before (one requested and finished between polls).
 * A scan pending at the last poll that neither shows is asked for by id. See docs/poll-trigger.md.
 */
export async function pollCompletions(
	this: IPollFunctions,
	event: CompletionEvent,
	state: PollState,
	manual: boolean,
): Promise<INodeExecutionData[]> {
	const type = event === 'open-completed' ? 'open' : 'scan';
	const category = type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST';
	const ofType = (scans: IDataObject[]) =>
		scans.filter((scan) => canonicalScanType(scan.type) === category);
	if (manual) {
		// A test run shows the latest completions and leaves the state alone.
		const page = await getPage(
			this,
			'/v1/scans',
			{ type, status: ['completed'], sort: 'newest' },
			5,
			undefined,
		);
		return ofType(page.data).map((json) => ({ json: { event, ...canonicalRecord(json, 'scan') } }));
	}
	const pendingNow = ofType(
		await readAll.call(this, { type, status: PENDING_STATUSES, sort: 'newest' }),
	);
	const seen: NewestScans = { newestCreated: state.newestCreated, newestIds: state.newestIds };
	const primed = state.pending !== undefined;
	const newest = ofType(
		await readNewest.call(this, { type, sort: 'newest' }, primed ? seen : {}, primed),
	);
	if (!primed) {
		// Priming: the scans pending now (however old) and the newest one, so that a scan requested
		// from now on is new. Emits nothing.
		const pending: Record<string, number> = {};
		const unlisted = ofType(await pendingInUnlistedStatuses.call(this, type));
		for (const scan of [...pendingNow, ...newest, ...unlisted])
			if (isPending(scan)) pending[String(scan.id)] = createdMs(scan);
		Object.assign(state, { pending, ...newestOf(newest, {}) });
		return [];
	}
	const emitted = new Set(state.emitted ?? []);
	const found = examineScans({
		pendingBefore: state.pending ?? {},
		pendingNow,
		newest,
		seen,
		emitted,
	});
	// Scans pending last time that neither list shows now. One whose status cannot be read stays
	// pending, so the next poll asks again: a failing request must not make a completion disappear.
	let failure: unknown;
	for (const id of found.askById) {
		let scan: IDataObject;
		try {
			scan = (await apiRequest.call(this, 'GET', `/v1/scans/${segment(id)}`)) as IDataObject;
		} catch (error) {
			if ((error as NodeApiError).context?.status === 404) continue; // deleted: nothing to emit
			found.pending[id] = state.pending![id];
			failure ??= error;
			continue;
		}
		if (isPending(scan)) found.pending[id] = createdMs(scan);
		else if (isCompleted(scan) && !emitted.has(completionKey(scan))) found.completed.push(scan);
	}
	const completedAt = (scan: IDataObject) =>
		Date.parse(String(scan.status_updated_at ?? scan.updated_at ?? '')) || 0;
	const completed = found.completed.sort((a, b) => completedAt(a) - completedAt(b));
	Object.assign(state, {
		pending: found.pending,
		...newestOf(newest, seen),
		emitted: [...(state.emitted ?? []), ...completed.map(completionKey)].slice(-MAX_EMITTED),
	});
	// With nothing to emit, the failure is reported (n8n shows the poll's error); the state above,
	// kept in memory by n8n between polls, already holds the scans to ask about again.
	if (failure && completed.length === 0) throw failure;
	return completed.map((json) => ({ json: { event, ...canonicalRecord(json, 'scan') } }));
}

/** The statuses the `GET /v1/scans` filter can ask for (provider-endpoints.md). */
const LISTED_STATUSES = [
	'in_process',
	'restoring',
	'completed',
	'cancelled',
	'rejected',
	'deleted',
];

/**
 * Priming: the scans pending in a status the filter cannot ask for (`PENDING`), however old, as
 * the in-process ones are. Two counts tell whether any exist (the type's whole list counts more
 * than its scans in the listed statuses); only then is the whole list read, once.
 */
async function pendingInUnlistedStatuses(
	this: IPollFunctions,
	type: string,
): Promise<IDataObject[]> {
	const count = async (query: Query) =>
		(await getPage(this, '/v1/scans', { type, ...query, sort: 'newest' }, 1, undefined))
			.total_count;
	if ((await count({})) <= (await count({ status: LISTED_STATUSES }))) return [];
	return (await readAll.call(this, { type, sort: 'newest' })).filter(isPending);
}

async function readAll(this: IPollFunctions, query: Query): Promise<IDataObject[]> {
	const scans: IDataObject[] = [];
	for await (const page of eachPage(this, '/v1/scans', query)) scans.push(...page.data);
	return scans;
}

/**
 * Newest created first, down to the newest scan seen before (`seen`): the page that reaches a scan
 * created before it is the last. Priming reads one page.
 */
async function readNewest(
	this: IPollFunctions,
	query: Query,
	seen: NewestScans,
	primed: boolean,
): Promise<IDataObject[]> {
	const scans: IDataObject[] = [];
	for await (const page of eachPage(this, '/v1/scans', query)) {
		scans.push(...page.data);
		if (!primed) break;
		const last = page.data.at(-1);
		if (seen.newestCreated !== undefined && last && createdMs(last) < seen.newestCreated) break;
	}
	return scans;
}
