import type { IDataObject, INodeExecutionData, IPollFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT } from '../shared/constants';
import { MAIL_SPLITS } from '../shared/mail';
import { divideQuery, eachPage, getPage, type Query } from '../shared/transport';
import { compareKeys, isAboveFloor, type OrderKey, orderKeyOf, primingDone, recordItems, selectNew } from './floor';
import type { PollState } from './state';

/**
 * New Mail (the guarantee: VirtualMailboxPollTrigger.node.ts). Each poll reads `query` (the
 * trigger's filters, sort=newest) down to the floor, the cursor used within this poll only, and
 * emits what is above the floor and not recorded, oldest first.
 */
export async function pollNewMail(this: IPollFunctions, state: PollState, query: Query, manual: boolean): Promise<INodeExecutionData[]> {
	if (manual) {
		// A test run shows the latest items and leaves the state alone (n8n does not save it then).
		const page = await getPage(this, '/v1/mails', query, 5, undefined);
		return page.data.map((json) => ({ json: { event: 'new-mail', ...json } }));
	}
	if (!state.recorded) {
		await prime.call(this, state);
		return [];
	}
	const floor = state.floor;
	const read: FloorRead = { items: new Map() };
	await readDownToFloor.call(this, query, floor, read);
	if (read.unreached) {
		// Given up knowingly: the floor goes up past what could not be listed, and the poll says so.
		Object.assign(state, recordItems(read.unreached, state.recorded, []));
		throw new NodeOperationError(this.getNode(), `Mail that arrived between ${floor ? isoOf(floor) : 'the activation'} and ${isoOf(read.unreached)} may not have been emitted: the API would not list it (it lists one query only ${DEPTH_LIMIT} items deep, and more matched even divided by status, mail type, scan status and read state)`, {
			description: 'Read that mail with Mail → Get Many (Return All). The trigger goes on with the newer mail from the next poll; this is reported once.',
		});
	}
	const { emit } = selectNew(read.items.values(), floor, state.recorded);
	Object.assign(state, recordItems(floor, state.recorded, emit));
	return emit.map((json) => ({ json: { event: 'new-mail', ...json } }));
}

/**
 * Priming: the whole mailbox (no filters: mail the filters leave out now may match later), newest
 * first, down to LATE_WINDOW below the newest item or MAX_REMEMBERED items, recorded. Emits nothing.
 */
async function prime(this: IPollFunctions, state: PollState): Promise<void> {
	const read: IDataObject[] = [];
	for await (const page of eachPage(this, '/v1/mails', { sort: 'newest' })) {
		for (const item of page.data) {
			read.push(item);
			if (primingDone(read)) break;
		}
		if (primingDone(read)) break;
	}
	Object.assign(state, recordItems(undefined, {}, read));
}

interface FloorRead {
	/** Every item listed above the floor, by id (a cursor that counts positions may list one twice). */
	items: Map<string, IDataObject>;
	/** The highest of the lowest keys read in parts the API would not list down to the floor. */
	unreached?: OrderKey;
}

/**
 * Reads `query` newest first down to the floor. The API lists one query only DEPTH_LIMIT items
 * deep: a query that ends (or refuses its cursor) above the floor is divided by the filters of
 * MAIL_SPLITS, each part read the same way; a part no filter divides further is unreached.
 */
async function readDownToFloor(this: IPollFunctions, query: Query, floor: OrderKey | undefined, read: FloorRead, splitFrom = 0): Promise<void> {
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
				if (!isAboveFloor(key, floor)) return; // newest first: the rest is at or below the floor too
				read.items.set(String(item.id), item);
				lowest = key;
			}
			if (!page.next_cursor && (page.total_count <= DEPTH_LIMIT || listed >= page.total_count)) return; // the list's end
		}
	} catch (error) {
		// A refused cursor is the depth limit (or an expired cursor: the part is read again divided).
		if (pages === 0 || (error as NodeApiError).context?.status !== 422) failure = error;
	}
	if (failure) throw failure;
	const division = divideQuery(query, MAIL_SPLITS, splitFrom);
	if (division) {
		for (const part of division.parts) await readDownToFloor.call(this, part, floor, read, division.next);
	} else if (lowest && (!read.unreached || compareKeys(lowest, read.unreached) > 0)) {
		read.unreached = lowest;
	}
}

function isoOf(key: OrderKey): string {
	return new Date(key[0]).toISOString();
}
