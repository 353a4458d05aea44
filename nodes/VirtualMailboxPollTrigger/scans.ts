import type { IDataObject } from 'n8n-workflow';

import { canonicalScanStatus, isFinishedScanStatus } from '../shared/values';

/** Scan and Open Completed's decisions, pure. */

/** A backstop: a completion is emitted only once it left pending. */
export const MAX_EMITTED = 1_000;

/** Lower case, as the `GET /v1/scans` filter takes them. */
export const PENDING_STATUSES = ['in_process', 'restoring'];

/**
 * Not finished yet: in process, restoring, or any status the package does not know (the spec
 * speaks of a "pending scan" and leaves other moves "not shown"), so that an unknown status never
 * makes a completion disappear: the scan stays pending until the API says it finished.
 */
export function isPending(scan: IDataObject): boolean {
	return !isFinishedScanStatus(scan.status);
}

export function isCompleted(scan: IDataObject): boolean {
	return canonicalScanStatus(scan.status) === 'COMPLETED';
}

/** One completion of a scan: a restored scan completes again with a new status_updated_at. */
export function completionKey(scan: IDataObject): string {
	return `${String(scan.id)}@${String(scan.status_updated_at ?? scan.updated_at ?? '')}`;
}

export function createdMs(scan: IDataObject): number {
	return Date.parse(String(scan.created_at ?? ''));
}

/** A scan created later, or in the same instant and not among these, is new. */
export interface NewestScans {
	newestCreated?: number;
	newestIds?: string[];
}

export function isNewScan(scan: IDataObject, seen: NewestScans): boolean {
	if (seen.newestCreated === undefined) return true;
	const created = createdMs(scan);
	return (
		created > seen.newestCreated ||
		(created === seen.newestCreated && !(seen.newestIds ?? []).includes(String(scan.id)))
	);
}

export function newestOf(scans: IDataObject[], seen: NewestScans): NewestScans {
	let { newestCreated, newestIds = [] } = seen;
	for (const scan of scans) {
		const created = createdMs(scan);
		if (Number.isNaN(created)) continue;
		if (newestCreated === undefined || created > newestCreated)
			[newestCreated, newestIds] = [created, []];
		if (created === newestCreated && !newestIds.includes(String(scan.id)))
			newestIds = [...newestIds, String(scan.id)];
	}
	return { newestCreated, newestIds };
}

/** What a poll knows. */
export interface ScanReading {
	/** id → created_at ms of the scans pending at the last poll (or priming). */
	pendingBefore: Record<string, number>;
	/** Scans of the type in process or restoring now (the first request). */
	pendingNow: IDataObject[];
	/** The newest scans of the type, down to the newest seen before (the second request). */
	newest: IDataObject[];
	seen: NewestScans;
	emitted: ReadonlySet<string>;
}

/** A completion is emitted if its scan was seen pending or is new, and not emitted before. */
export function examineScans(reading: ScanReading): {
	completed: IDataObject[];
	pending: Record<string, number>;
	askById: string[];
} {
	const pending: Record<string, number> = {};
	for (const scan of reading.pendingNow) pending[String(scan.id)] = createdMs(scan);
	const completed = new Map<string, IDataObject>();
	const listed = new Set<string>();
	for (const scan of reading.newest) {
		const id = String(scan.id);
		listed.add(id);
		const wasPending = id in reading.pendingBefore || id in pending;
		if (isPending(scan)) pending[id] = createdMs(scan);
		else delete pending[id]; // finished since the first request, one way or another
		if (
			isCompleted(scan) &&
			(wasPending || isNewScan(scan, reading.seen)) &&
			!reading.emitted.has(completionKey(scan))
		)
			completed.set(id, scan);
	}
	const askById = Object.keys(reading.pendingBefore).filter(
		(id) => !(id in pending) && !listed.has(id),
	);
	return { completed: [...completed.values()], pending, askById };
}
