import type { IDataObject, INodeExecutionData, IPollFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT } from '../shared/constants';
import { MAIL_SPLITS } from '../shared/mail';
import { divideQuery, eachPage, getPage, type Query } from '../shared/transport';
import {
	compareKeys,
	type FloorState,
	isAboveFloor,
	type OrderKey,
	orderKeyOf,
	primingDone,
	recordItems,
	selectNew,
} from './floor';
import type { PollState } from './state';
import { canonicalRecord } from '../shared/values';

/** New Mail: each poll reads down to the floor and emits what it has not recorded, oldest first. */
export async function pollNewMail(
	this: IPollFunctions,
	state: PollState,
	query: Query,
	manual: boolean,
): Promise<INodeExecutionData[]> {
	if (manual) {
		// A test run shows the latest items and leaves the state alone (n8n does not save it then).
		const page = await getPage(this, '/v1/mails', query, 5, undefined);
		return page.data.map((json) => ({
			json: { event: 'new-mail', ...canonicalRecord(json, 'mail') },
		}));
	}
	if (state.unreachable) {
		// Mail out of reach found by the last poll, which emitted (below).
		// Cleared first: reported once.
		const [from, to] = state.unreachable;
		delete state.unreachable;
		throw unreachableError(this, from, to);
	}
	if (!state.recorded) {
		await prime.call(this, state);
		return [];
	}
	const floor = state.floor;
	const read: FloorRead = { items: new Map() };
	await readDownToFloor.call(this, query, floor, read);
	if (read.unreached && !(state.reported && compareKeys(read.unreached, state.reported) <= 0)) {
		// Mail out of reach is reported once, by failing this poll (a poll cannot both emit and
		// fail) with the floor unchanged: the next poll emits what was read in full.
		const from = state.reported?.[0] ?? floor?.[0] ?? null;
		const first = !state.reported;
		state.reported = read.unreached;
		if (first) throw unreachableError(this, from, read.unreached[0]);
		state.unreachable = [from, read.unreached[0]];
	}
	const { emit, oldestWaiting } = selectNew(read.items.values(), floor, state.recorded);
	// What could not be listed (reported) is given up knowingly: the floor goes up past it, but not
	// past new mail read and left for the next polls by the cap.
	let past = read.unreached;
	if (past && oldestWaiting && compareKeys(oldestWaiting, past) <= 0)
		past = [oldestWaiting[0], oldestWaiting[1] - 1];
	Object.assign(state, recordItems(state as FloorState, emit, { past }));
	if (state.reported && !isAboveFloor(state.reported, state.floor)) delete state.reported;
	return emit.map((json) => ({ json: { event: 'new-mail', ...canonicalRecord(json, 'mail') } }));
}

function unreachableError(
	context: IPollFunctions,
	from: number | null,
	to: number,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`Mail that arrived between ${from === null ? 'the activation' : isoOf(from)} ` +
			`and ${isoOf(to)} may not have been emitted: the API would not ` +
			`list it (it lists one query only ${DEPTH_LIMIT} items deep, and more ` +
			'matched even divided by status, mail type, scan status and read state)',
		{
			description:
				'Read that mail with Mail → Get Many (Return All). The trigger goes ' +
				'on with the newer mail from the next poll; this is reported once.',
		},
	);
}

/** Priming reads without the filters: mail they leave out now may match later. */
async function prime(this: IPollFunctions, state: PollState): Promise<void> {
	const read: IDataObject[] = [];
	const keys: OrderKey[] = [];
	for await (const page of eachPage(this, '/v1/mails', { sort: 'newest' })) {
		for (const item of page.data) {
			const key = orderKeyOf(item);
			if (!key) continue;
			read.push(item);
			keys.push(key);
			if (primingDone(keys)) break;
		}
		if (primingDone(keys)) break;
	}
	Object.assign(state, recordItems({ recorded: {} }, read, { atOnce: true }));
}

interface FloorRead {
	/** By id: a cursor that counts positions may list one twice. */
	items: Map<string, IDataObject>;
	/** The highest of the lowest keys read in parts the API would not list down to the floor. */
	unreached?: OrderKey;
}

/**
 * The API lists a query only DEPTH_LIMIT deep: one that ends above the floor is divided by the
 * filters of MAIL_SPLITS; a part no filter divides further is unreached.
 */
async function readDownToFloor(
	this: IPollFunctions,
	query: Query,
	floor: OrderKey | undefined,
	read: FloorRead,
	splitFrom = 0,
): Promise<void> {
	let lowest: OrderKey | undefined;
	let listed = 0;
	let pages = 0;
	let failure: unknown;
	try {
		for await (const page of eachPage(this, '/v1/mails', query)) {
			pages++;
			listed += page.data.length;
			for (const item of page.data) {
				const key = orderKeyOf(item);
				if (!key) continue; // undated: never new mail
				if (!isAboveFloor(key, floor)) return; // newest first: so is the rest
				read.items.set(String(item.id), item);
				lowest = key;
			}
			if (!page.next_cursor && (page.total_count <= DEPTH_LIMIT || listed >= page.total_count))
				return; // the list's end
		}
	} catch (error) {
		// A refused cursor is the depth limit (or an expired cursor: the part is read again divided).
		if (pages === 0 || (error as NodeApiError).context?.status !== 422) failure = error;
	}
	if (failure) throw failure;
	const division = divideQuery(query, MAIL_SPLITS, splitFrom);
	if (division) {
		for (const part of division.parts)
			await readDownToFloor.call(this, part, floor, read, division.next);
	} else if (lowest && (!read.unreached || compareKeys(lowest, read.unreached) > 0)) {
		read.unreached = lowest;
	}
}

function isoOf(ms: number): string {
	return new Date(ms).toISOString();
}
