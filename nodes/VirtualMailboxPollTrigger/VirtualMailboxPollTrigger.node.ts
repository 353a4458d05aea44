import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions, NodeApiError } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { attachFile, attachLink, downloadFileOption, downloadScanFile, maxBytesOf, maxFileSizeOption, outputFieldOption } from '../shared/files';
import { MAIL_FILTERS, mailQuery } from '../shared/mail';
import { apiRequest, eachPage, getPage, type Query, segment } from '../shared/transport';
import { departed, MAX_LATE_PAGES, MAX_PENDING, type PollState, remember, takeLate, takeNew } from './polling';

type PollEvent = 'new-mail' | 'scan-completed' | 'open-completed';

export class VirtualMailboxPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Virtual Mailbox Poll Trigger',
		name: 'virtualMailboxPollTrigger',
		icon: { light: 'file:../../icons/virtualMailbox.svg', dark: 'file:../../icons/virtualMailbox.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["event"]}}',
		description: 'Starts the workflow when new mail arrives or a scan completes, by checking the mailbox on a schedule (no webhook plan needed)',
		defaults: { name: 'Virtual Mailbox Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'virtualMailboxApi', required: true }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				default: 'new-mail',
				options: [
					{ name: 'New Mail', value: 'new-mail', description: 'A mail item arrived (optionally only those matching the filters)' },
					{ name: 'Open Completed', value: 'open-completed', description: 'An open-and-scan request finished' },
					{ name: 'Scan Completed', value: 'scan-completed', description: 'A scan request finished' },
				],
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				displayOptions: { show: { event: ['new-mail'] } },
				// Newest-first order and the whole mailbox period are the trigger's own business.
				options: MAIL_FILTERS.filter((filter) => ['mailType', 'scanStatus', 'search', 'status'].includes(filter.name)),
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					downloadFileOption('Whether to download the envelope photo (new mail) or the scan file (completed scans) as binary data'),
					maxFileSizeOption({ displayOptions: { show: { downloadFile: [true] } } }),
					outputFieldOption,
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as PollEvent;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const state = this.getWorkflowStaticData('node') as PollState;
		const manual = this.getMode() === 'manual';
		const items = event === 'new-mail' ? await pollNewMail.call(this, state, manual) : await pollCompletions.call(this, event, state, manual);
		if (items.length === 0) return null;
		if (options.downloadFile) {
			const property = String(options.binaryPropertyName || 'data');
			for (const item of items) {
				const fallbackName = `${event}-${String(item.json.id)}`;
				const maxBytes = maxBytesOf(options);
				if (event === 'new-mail') await attachLink.call(this, item, item.json.envelope_image_url, fallbackName, property, { maxBytes });
				else await attachFile.call(this, item, property, async () => await downloadScanFile.call(this, String(item.json.id), { fallbackName, maxBytes }));
			}
		}
		return [items];
	}
}

/**
 * Newest-first pages until an item already seen; one request when nothing is new. The query's
 * total_count tells whether that is all: when it grew by more than the new items at the top, mail
 * was logged late with an earlier arrival date, and the walk goes on below the first seen item
 * (within the remembered part of the list, at most MAX_LATE_PAGES) to find it.
 */
async function pollNewMail(this: IPollFunctions, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const query: Query = { ...mailQuery(filters), sort: 'newest' };
	if (manual) {
		// A test run shows the latest items and leaves the state alone (n8n does not save it then).
		const page = await getPage(this, '/v1/mails', query, 5, undefined);
		return page.data.map((json) => ({ json: { event: 'new-mail', ...json } }));
	}
	const seen = new Set(state.seenIds ?? []);
	const floor = state.seenIds?.at(-1);
	const fresh: IDataObject[] = [];
	const late: IDataObject[] = [];
	const walked: string[] = [];
	let total: number | undefined;
	let missing = 0;
	let deeper = 0;
	for await (const page of eachPage(this, '/v1/mails', query)) {
		total ??= page.total_count;
		let rest = page.data;
		if (!state.primed) {
			fresh.push(...page.data);
			break;
		}
		if (deeper === 0) {
			const taken = takeNew(page.data, seen, state.newestArrival);
			fresh.push(...taken.fresh);
			if (!taken.stop) continue;
			missing = state.total === undefined ? 0 : total - state.total - fresh.length;
			if (missing <= 0) break;
			rest = page.data.slice(taken.fresh.length);
		}
		const found = takeLate(rest, seen, floor, missing - late.length);
		late.push(...found.late);
		walked.push(...found.walked);
		if (found.done || ++deeper >= MAX_LATE_PAGES) break;
	}
	const firstRun = !state.primed;
	state.primed = true;
	state.total = total;
	// In list order (newest first): the new items, what the deeper walk passed, then the rest.
	state.seenIds = remember([...fresh.map((m) => String(m.id)), ...walked], state.seenIds);
	const newest = fresh[0]?.arrival_date;
	if (typeof newest === 'string' && (!state.newestArrival || Date.parse(newest) > Date.parse(state.newestArrival))) state.newestArrival = newest;
	// The first activation records where the mailbox stands instead of replaying it.
	if (firstRun) return [];
	return [...late.reverse(), ...fresh.reverse()].map((json) => ({ json: { event: 'new-mail', ...json } }));
}

/**
 * Completions finish out of arrival order, so they are found by status change: the scans pending
 * at the last poll that are pending no longer. One request per poll while nothing changes.
 */
async function pollCompletions(this: IPollFunctions, event: PollEvent, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const category = event === 'open-completed' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST';
	if (manual) {
		const page = await getPage(this, '/v1/mails', { scan_status: ['completed'], sort: 'newest' }, 20, undefined);
		const mails = page.data.filter((m) => (m.scan as IDataObject | null)?.category === category).slice(0, 5);
		const scans = await Promise.all(mails.map((m) => apiRequest.call(this, 'GET', `/v1/scans/${segment(String((m.scan as IDataObject).uuid))}`)));
		return scans.map((json) => ({ json: { event, ...json } }));
	}
	const pendingNow: Record<string, string> = {};
	for await (const page of eachPage(this, '/v1/mails', { scan_status: ['in_process', 'restoring'] })) {
		for (const mail of page.data) {
			const scan = mail.scan as IDataObject | null;
			if (scan?.category === category && typeof scan.uuid === 'string') pendingNow[scan.uuid] = String(mail.id);
		}
		if (Object.keys(pendingNow).length >= MAX_PENDING) break;
	}
	const changed = state.primed ? departed(state.pending, pendingNow) : [];
	const emitted = new Set(state.emitted ?? []);
	const out: INodeExecutionData[] = [];
	// A departed scan whose status cannot be read now stays pending, so the next poll asks again:
	// one failing request must not make a completion disappear.
	const unread: Record<string, string> = {};
	let failure: unknown;
	for (const id of changed) {
		if (emitted.has(id)) continue;
		let scan;
		try {
			scan = await apiRequest.call(this, 'GET', `/v1/scans/${segment(id)}`);
		} catch (error) {
			if ((error as NodeApiError).context?.status === 404) continue; // deleted: nothing to emit
			unread[id] = (state.pending ?? {})[id];
			failure ??= error;
			continue;
		}
		if (String(scan.status) !== 'COMPLETED') continue; // cancelled, rejected…: not a completion
		out.push({ json: { event, ...scan } });
		emitted.add(id);
	}
	state.primed = true;
	state.pending = { ...pendingNow, ...unread };
	state.emitted = remember(out.map((i) => String(i.json.id)), state.emitted);
	// With nothing to emit, the failure is reported (n8n shows the poll's error); the state above,
	// kept in memory by n8n between polls, already holds the scans to ask about again.
	if (failure && out.length === 0) throw failure;
	return out;
}
