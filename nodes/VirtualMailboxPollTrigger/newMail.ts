import type { IDataObject, INodeExecutionData, IPollFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEPTH_LIMIT } from '../shared/constants';
import { mailOrder, mailQuery } from '../shared/mail';
import { eachPage, getPage, type Page, type Query } from '../shared/transport';
import { type BacklogPart, divideBacklog, MAX_LATE_PAGES, MAX_POLL_PAGES, type PollState, remember, takeBacklog, takeLate, takeNew } from './polling';

/**
 * New Mail. Newest-first pages until an item already seen; one request when nothing is new. The
 * query's total_count tells whether that is all: when it grew by more than the new items at the
 * top, mail was logged late with an earlier arrival date, and the walk goes on below the first
 * seen item (within the remembered part of the list, at most MAX_LATE_PAGES) to find it.
 *
 * A poll reads at most MAX_POLL_PAGES pages of new mail. More than that (the trigger was off for a
 * while) is a backlog: the poll emits the newest part and keeps where it stopped (the API's cursor,
 * the last item read, and the items that end the backlog); later polls read on from there, each
 * up to the same cap, until the backlog meets mail seen before. Nothing is skipped, nothing is
 * emitted twice. The API lists a query only 10,000 items deep: a backlog part that reaches that is
 * divided by filters (MAIL_SPLITS) and each division read on its own. Only if that is still too
 * deep does the next poll fail once, naming the arrival dates it could not reach.
 */
export async function pollNewMail(this: IPollFunctions, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const query: Query = { ...mailQuery(filters), sort: 'newest' };
	if (manual) {
		// A test run shows the latest items and leaves the state alone (n8n does not save it then).
		const page = await getPage(this, '/v1/mails', query, 5, undefined);
		return page.data.map((json) => ({ json: { event: 'new-mail', ...json } }));
	}
	if (state.unreachable) {
		const { from, to } = state.unreachable;
		delete state.unreachable;
		throw new NodeOperationError(this.getNode(), `Mail that arrived between ${from || 'the last poll'} and ${String(to)} was not emitted: the API would not list it (it lists one query only ${DEPTH_LIMIT} items deep; more arrived while the trigger was not polling, even divided by status, mail type, scan status and read state)`, {
			description: 'Read that mail with Mail → Get Many (Return All, which divides the list to reach it); the trigger goes on with new mail from the next poll.',
		});
	}
	const seen = new Set(state.seenIds ?? []);
	const floor = state.seenIds?.at(-1);
	const backlog: BacklogPart[] = [...(state.backlog ?? [])];
	const stops: Record<string, string[]> = { ...state.backlogStops };
	const fresh: IDataObject[] = [];
	const late: IDataObject[] = [];
	const walked: string[] = [];
	let total: number | undefined;
	let missing = 0;
	let deeper = 0;
	let pages = 0;
	let overflow: BacklogPart | undefined;
	for await (const page of eachPage(this, '/v1/mails', query)) {
		pages++;
		total ??= page.total_count;
		let rest = page.data;
		if (!state.primed) {
			fresh.push(...page.data);
			break;
		}
		if (deeper === 0) {
			const taken = takeNew(page.data, seen, state.newestArrival);
			fresh.push(...taken.fresh);
			if (!taken.stop) {
				if (pages < MAX_POLL_PAGES || !page.next_cursor) continue;
				overflow = { cursor: page.next_cursor, after: positionOf(fresh[fresh.length - 1]), stopArrival: state.newestArrival ?? '' };
				stops[overflow.stopArrival] = state.seenIds ?? [];
				break;
			}
			// Late mail is looked for once any backlog is read: until then the counts include it.
			missing = state.total === undefined || backlog.length > 0 ? 0 : total - state.total - fresh.length;
			if (missing <= 0) break;
			rest = page.data.slice(taken.fresh.length);
		}
		const found = takeLate(rest, seen, floor, missing - late.length);
		late.push(...found.late);
		walked.push(...found.walked);
		if (found.done || ++deeper >= MAX_LATE_PAGES) break;
	}
	// The backlog, oldest part first, with the pages this poll has left.
	const caughtUp: IDataObject[] = [];
	let unreachable: PollState['unreachable'];
	while (backlog.length > 0 && pages < MAX_POLL_PAGES) {
		const part = backlog[0];
		const read = await readBacklogPage.call(this, { ...query, ...part.filters }, part);
		pages++;
		const taken = read.page ? takeBacklog(read.page.data, part, new Set(stops[part.stopArrival])) : { items: [], done: false };
		caughtUp.push(...taken.items);
		const last = taken.items.at(-1);
		const after = last ? positionOf(last) : part.after;
		if (read.page?.next_cursor && !taken.done) {
			backlog[0] = { ...part, cursor: read.page.next_cursor, after };
			continue;
		}
		backlog.shift();
		// The list ended before the mail seen earlier, or a cursor was refused: the API's depth limit.
		// Divided by a filter, each division lists fewer items and reaches further.
		const tooDeep = !taken.done && (read.page === undefined || read.page.total_count > DEPTH_LIMIT);
		if (!tooDeep) continue;
		const divided = divideBacklog({ ...part, after }, query);
		if (divided) backlog.unshift(...divided);
		else if (!unreachable || Date.parse(after.arrival_date) > Date.parse(unreachable.to)) unreachable = { from: part.stopArrival, to: after.arrival_date };
	}
	if (overflow) backlog.push(overflow);
	if (unreachable) state.unreachable = unreachable;
	const firstRun = !state.primed;
	state.primed = true;
	state.total = backlog.length > 0 ? undefined : total;
	state.backlog = backlog.length > 0 ? backlog : undefined;
	const stillUsed = new Set(backlog.map((part) => part.stopArrival));
	state.backlogStops = stillUsed.size > 0 ? Object.fromEntries(Object.entries(stops).filter(([key]) => stillUsed.has(key))) : undefined;
	// In list order (newest first): the new items, what the deeper walk passed, then the rest; after
	// an overflow the new items alone (what lies below them is the backlog).
	state.seenIds = overflow ? remember(fresh.map((m) => String(m.id))) : remember([...fresh.map((m) => String(m.id)), ...walked], state.seenIds);
	const newest = fresh[0]?.arrival_date;
	if (typeof newest === 'string' && (!state.newestArrival || Date.parse(newest) > Date.parse(state.newestArrival))) state.newestArrival = newest;
	// The first activation records where the mailbox stands instead of replaying it.
	if (firstRun) return [];
	return [...caughtUp.sort(mailOrder('oldest')), ...late.reverse(), ...fresh.reverse()].map((json) => ({ json: { event: 'new-mail', ...json } }));
}

function positionOf(item: IDataObject): BacklogPart['after'] {
	return { id: String(item.id), arrival_date: String(item.arrival_date ?? '') };
}

/**
 * The next page of a backlog part (its first page when it has no cursor yet). A cursor the API no
 * longer takes (422: too deep, or expired) gives no page: the part must be divided to go on.
 */
async function readBacklogPage(this: IPollFunctions, query: Query, part: BacklogPart): Promise<{ page?: Page }> {
	let page: Page | undefined;
	let failure: unknown;
	try {
		page = await getPage(this, '/v1/mails', query, 100, part.cursor);
	} catch (error) {
		// Only a refused cursor means "too deep"; a refused query is an error like any other.
		if (!part.cursor || (error as NodeApiError).context?.status !== 422) failure = error;
	}
	if (failure) throw failure;
	return { page };
}
