import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MAIL_FILTERS, mailQuery } from '../VirtualMailbox/actions/mail/getAll.operation';
import { PAGE_SIZE_MAX } from '../shared/constants';
import { apiRequest, attachDownload, type Page, type Query, segment } from '../shared/transport';
import { departed, MAX_PENDING, type PollState, remember, takeNew } from './polling';

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
					{
						displayName: 'Download File',
						name: 'downloadFile',
						type: 'boolean',
						default: false,
						description: 'Whether to download the envelope photo (new mail) or the scan file (completed scans) as binary data',
					},
					{
						displayName: 'Put Output File in Field',
						name: 'binaryPropertyName',
						type: 'string',
						default: 'data',
						description: 'Name of the binary field to put the downloaded file in',
						displayOptions: { show: { downloadFile: [true] } },
					},
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
				let url = item.json.envelope_image_url;
				if (event !== 'new-mail') {
					// Scan files sit behind a short-lived link: ask for it now, download at once.
					try {
						url = (await apiRequest.call(this, 'GET', `/v1/scans/${segment(String(item.json.id))}/file`)).url;
					} catch (error) {
						item.json.download_error = (error as Error).message;
						continue;
					}
				}
				await attachDownload.call(this, item, url, `${event}-${String(item.json.id)}`, property);
			}
		}
		return [items];
	}
}

/** Newest-first pages until an item already seen; one request when nothing is new. */
async function pollNewMail(this: IPollFunctions, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const query: Query = { ...mailQuery(filters), sort: 'newest' };
	if (manual) {
		// A test run shows the latest items and leaves the state alone (n8n does not save it then).
		const page = (await apiRequest.call(this, 'GET', '/v1/mails', { query: { ...query, limit: 5 } })) as unknown as Page;
		return page.data.map((json) => ({ json: { event: 'new-mail', ...json } }));
	}
	const seen = new Set(state.seenIds ?? []);
	const fresh: IDataObject[] = [];
	const cursors = new Set<string>();
	let cursor: string | undefined;
	for (;;) {
		const page = (await apiRequest.call(this, 'GET', '/v1/mails', { query: { ...query, limit: PAGE_SIZE_MAX, cursor } })) as unknown as Page;
		const taken = state.primed ? takeNew(page.data, seen, state.newestArrival) : { fresh: page.data, stop: true };
		fresh.push(...taken.fresh);
		if (taken.stop || !page.next_cursor || cursors.has(page.next_cursor)) break;
		cursors.add(page.next_cursor);
		cursor = page.next_cursor;
	}
	const firstRun = !state.primed;
	state.primed = true;
	state.seenIds = remember(fresh.map((m) => String(m.id)), state.seenIds);
	const newest = fresh[0]?.arrival_date;
	if (typeof newest === 'string' && (!state.newestArrival || Date.parse(newest) > Date.parse(state.newestArrival))) state.newestArrival = newest;
	// The first activation records where the mailbox stands instead of replaying it.
	if (firstRun) return [];
	return fresh.reverse().map((json) => ({ json: { event: 'new-mail', ...json } }));
}

/**
 * Completions finish out of arrival order, so they are found by status change: the scans pending
 * at the last poll that are pending no longer. One request per poll while nothing changes.
 */
async function pollCompletions(this: IPollFunctions, event: PollEvent, state: PollState, manual: boolean): Promise<INodeExecutionData[]> {
	const category = event === 'open-completed' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST';
	if (manual) {
		const page = (await apiRequest.call(this, 'GET', '/v1/mails', { query: { scan_status: ['completed'], sort: 'newest', limit: 20 } })) as unknown as Page;
		const mails = page.data.filter((m) => (m.scan as IDataObject | null)?.category === category).slice(0, 5);
		const scans = await Promise.all(mails.map((m) => apiRequest.call(this, 'GET', `/v1/scans/${segment(String((m.scan as IDataObject).uuid))}`)));
		return scans.map((json) => ({ json: { event, ...json } }));
	}
	const pendingNow: Record<string, string> = {};
	let cursor: string | undefined;
	const cursors = new Set<string>();
	for (;;) {
		const page = (await apiRequest.call(this, 'GET', '/v1/mails', {
			query: { scan_status: ['in_process', 'restoring'], limit: PAGE_SIZE_MAX, cursor },
		})) as unknown as Page;
		for (const mail of page.data) {
			const scan = mail.scan as IDataObject | null;
			if (scan?.category === category && typeof scan.uuid === 'string') pendingNow[scan.uuid] = String(mail.id);
		}
		if (!page.next_cursor || cursors.has(page.next_cursor) || Object.keys(pendingNow).length >= MAX_PENDING) break;
		cursors.add(page.next_cursor);
		cursor = page.next_cursor;
	}
	const changed = state.primed ? departed(state.pending, pendingNow) : [];
	state.primed = true;
	state.pending = pendingNow;
	const emitted = new Set(state.emitted ?? []);
	const out: INodeExecutionData[] = [];
	for (const id of changed) {
		if (emitted.has(id)) continue;
		const scan = await apiRequest.call(this, 'GET', `/v1/scans/${segment(id)}`);
		if (String(scan.status) !== 'COMPLETED') continue; // cancelled, rejected…: not a completion
		out.push({ json: { event, ...scan } });
		emitted.add(id);
	}
	state.emitted = remember(out.map((i) => String(i.json.id)), state.emitted);
	return out;
}
