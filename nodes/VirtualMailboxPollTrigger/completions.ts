import type { IDataObject, INodeExecutionData, IPollFunctions, NodeApiError } from 'n8n-workflow';

import { apiRequest, eachPage, getPage, segment } from '../shared/transport';
import { examineScans, MAX_PENDING, MAX_SCAN_PAGES, newScanWindow, nextScanWindow, type PollState, remember, scanFindings, scanWalkDone } from './polling';

export type CompletionEvent = 'scan-completed' | 'open-completed';

/**
 * Scan Completed / Open Completed. Scans finish out of arrival order, so the poll reads
 * `GET /v1/scans` newest created first (provider behaviour, docs/api.md) below the scans created
 * since the last poll and, while that is cheaper than asking for each by id, below every scan that
 * was in process then. A completed scan there is emitted once if it is new (requested and finished
 * between two polls) or was in process. The state needs no save between emits to stay right: the
 * newest scan seen and the pending ones are saved together, so a restart from an older save walks
 * a little further and finds what completed meanwhile. Nothing in process and nothing new: one
 * request.
 */
export async function pollCompletions(this: IPollFunctions, event: CompletionEvent, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const category = event === 'open-completed' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST';
	if (manual) {
		// A test run shows the latest completions and leaves the state alone.
		const page = await getPage(this, '/v1/scans', {}, 100, undefined);
		const done = page.data.filter((scan) => scan.type === category && scan.status === 'COMPLETED').slice(0, 5);
		return done.map((json) => ({ json: { event, ...json } }));
	}
	if (!state.primed || !state.newestScanIds) {
		await primeCompletions.call(this, category, state);
		return [];
	}
	const findings = scanFindings(state.newestScanCreated);
	const walk = { category, pending: state.pending ?? {}, emitted: new Set(state.emitted ?? []), window: newScanWindow(state.newestScanCreated, state.newestScanIds) };
	let pages = 0;
	for await (const page of eachPage(this, '/v1/scans', {})) {
		examineScans(page.data, walk, findings);
		if (scanWalkDone(walk, findings) || ++pages >= MAX_SCAN_PAGES) break;
	}
	// In the order they completed (the list is in the order they were requested).
	const completedAt = (scan: IDataObject) => Date.parse(String(scan.status_updated_at ?? scan.updated_at ?? '')) || 0;
	const out: INodeExecutionData[] = findings.completed.sort((a, b) => completedAt(a) - completedAt(b)).map((json) => ({ json: { event, ...json } }));
	// Scans in process last time that the walk did not reach (not listed, or deeper than it was
	// worth reading) are asked for one by one. One whose status cannot be read now stays pending,
	// so the next poll asks again: one failing request must not make a completion disappear.
	const stillPending: Record<string, string> = {};
	let failure: unknown;
	for (const id of Object.keys(walk.pending).filter((id) => !findings.found.has(id))) {
		let scan;
		try {
			scan = await apiRequest.call(this, 'GET', `/v1/scans/${segment(id)}`);
		} catch (error) {
			if ((error as NodeApiError).context?.status === 404) continue; // deleted: nothing to emit
			stillPending[id] = walk.pending[id];
			failure ??= error;
			continue;
		}
		if (scan.status === 'IN_PROCESS' || scan.status === 'RESTORING') stillPending[id] = walk.pending[id];
		else if (scan.status === 'COMPLETED' && !walk.emitted.has(id)) out.push({ json: { event, ...scan } });
	}
	state.pending = { ...findings.pending, ...stillPending };
	state.emitted = remember(out.map((i) => String(i.json.id)), state.emitted);
	Object.assign(state, nextScanWindow(findings));
	// With nothing to emit, the failure is reported (n8n shows the poll's error); the state above,
	// kept in memory by n8n between polls, already holds the scans to ask about again.
	if (failure && out.length === 0) throw failure;
	return out;
}

/**
 * First activation: the scans in process now (the mail list filtered by scan status finds them
 * all, however old) and the newest scans, so that the next poll knows what is new. Emits nothing.
 * A state saved by an earlier version keeps the scans it had pending.
 */
async function primeCompletions(this: IPollFunctions, category: string, state: PollState): Promise<void> {
	const pending: Record<string, string> = { ...state.pending };
	for await (const page of eachPage(this, '/v1/mails', { scan_status: ['in_process', 'restoring'] })) {
		for (const mail of page.data) {
			const scan = mail.scan as IDataObject | null;
			if (scan?.category === category && typeof scan.uuid === 'string') pending[scan.uuid] = String(mail.id);
		}
		if (Object.keys(pending).length >= MAX_PENDING) break;
	}
	const newest = await getPage(this, '/v1/scans', {}, 100, undefined);
	const findings = scanFindings();
	examineScans(newest.data, { category, pending: {}, emitted: new Set(), window: newScanWindow(undefined, []), priming: true }, findings);
	state.primed = true;
	state.pending = pending;
	Object.assign(state, nextScanWindow(findings));
}
