import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	attachFile,
	attachLink,
	downloadFileOption,
	downloadScanFile,
	maxBytesOf,
	maxFileSizeOption,
	outputFieldOption,
} from '../shared/files';
import { MAIL_FILTERS, mailQuery } from '../shared/mail';
import { pollsInFlight } from '../shared/state/pollsInFlight';
import { retryPolicy } from '../shared/state/retryPolicy';
import { accountOf } from '../shared/account';
import { CREDENTIAL_TYPE } from '../shared/constants';
import { apiRequest, deadlineIn, getApiCredentials, type Query } from '../shared/transport';
import { ruleValuesNotice } from '../shared/values';
import { type CompletionEvent, pollCompletions } from './completions';
import { pollNewMail } from './newMail';
import { accountIdDigest, changeOf, fingerprintOf, type PollState } from './state';

/**
 * Each new mail item and each scan completion is emitted once, none from before activation: a
 * state of another account, event or query primes (records where the mailbox stands, emits
 * nothing). One poll runs per trigger per process. The guarantee and its limits:
 * docs/poll-trigger.md.
 */
type PollEvent = 'new-mail' | CompletionEvent;

export class VirtualMailboxPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Virtual Mailbox Poll Trigger',
		name: 'virtualMailboxPollTrigger',
		icon: {
			light: 'file:../../icons/virtualMailbox.svg',
			dark: 'file:../../icons/virtualMailbox.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["event"]}}',
		description:
			'Starts the workflow when new mail arrives or a scan completes, ' +
			'by checking the mailbox on a schedule (no webhook plan needed)',
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
					{
						name: 'New Mail',
						value: 'new-mail',
						description: 'A mail item arrived (optionally only those matching the filters)',
					},
					{
						name: 'Open Completed',
						value: 'open-completed',
						description: 'An open-and-scan request finished',
					},
					{
						name: 'Scan Completed',
						value: 'scan-completed',
						description: 'A scan request finished',
					},
				],
			},
			ruleValuesNotice({ mail: true, scan: true, shipment: false }),
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				displayOptions: { show: { event: ['new-mail'] } },
				// Newest-first order and the whole mailbox period are the trigger's own business.
				options: MAIL_FILTERS.filter((filter) =>
					['mailType', 'scanStatus', 'search', 'status'].includes(filter.name),
				),
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					downloadFileOption(
						'Whether to download the envelope photo (new mail) ' +
							'or the scan file (completed scans) as binary data',
					),
					maxFileSizeOption({ displayOptions: { show: { downloadFile: [true] } } }),
					outputFieldOption,
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as PollEvent;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const manual = this.getMode() === 'manual';
		const query: Query =
			event === 'new-mail'
				? { ...mailQuery(this.getNodeParameter('filters', {}) as IDataObject), sort: 'newest' }
				: {};
		const key = `${this.getWorkflow().id ?? ''}|${this.getNode().id}`;
		// One poll in flight per trigger: a second one would start from the same state and emit twice.
		if (!manual && !pollsInFlight.start(key)) return null;
		try {
			const state = this.getWorkflowStaticData('node') as PollState;
			if (!manual) {
				const account = accountOf(
					this.getNode().credentials?.[CREDENTIAL_TYPE]?.id,
					await getApiCredentials.call(this),
				);
				const fingerprint = fingerprintOf(event, query, account);
				const change = changeOf(state.fingerprint, fingerprint);
				if (!change.sameRead || change.account !== 'same') {
					// Another credential or API key on the same server goes on when GET /v1/account names
					// the account recorded (a rotation); anything else primes, never replays.
					const accountId = change.account === 'same' ? state.accountId : await accountIdOf(this);
					const sameAccount =
						change.sameRead &&
						change.account === 'credential' &&
						accountId !== undefined &&
						accountId === state.accountId;
					if (!sameAccount) for (const field of Object.keys(state)) delete state[field];
					state.fingerprint = fingerprint;
					if (accountId !== undefined) state.accountId = accountId;
				}
			}
			const items =
				event === 'new-mail'
					? await pollNewMail.call(this, state, query, manual)
					: await pollCompletions.call(this, event as CompletionEvent, state, manual);
			if (items.length === 0) return null;
			// The downloads are part of the poll: a poll n8n starts meanwhile returns nothing.
			if (options.downloadFile) await attachFiles.call(this, event, items, options);
			return [items];
		} finally {
			if (!manual) pollsInFlight.end(key);
		}
	}
}

/** The account the credential reaches, as the state keeps it (one request: GET /v1/account). */
async function accountIdOf(ctx: IPollFunctions): Promise<string | undefined> {
	const account = (await apiRequest.call(ctx, 'GET', '/v1/account')) as IDataObject;
	return accountIdDigest(account?.id);
}

/** Download File for one poll's items; a failure is written into its item, never lost. */
async function attachFiles(
	this: IPollFunctions,
	event: PollEvent,
	items: INodeExecutionData[],
	options: IDataObject,
): Promise<void> {
	const property = String(options.binaryPropertyName || 'data');
	const maxBytes = maxBytesOf(options);
	// One deadline for all of this poll's downloads (link requests included), not one per
	// item: otherwise a slow host would hold the poll items × the download deadline.
	const deadline = deadlineIn(retryPolicy.downloadTimeoutMs);
	const late = `Not downloaded: this poll's downloads did not finish within ${deadline.ms / 1000} s`;
	for (const item of items) {
		if (deadline.signal.aborted) {
			item.json.download_error = late;
			continue;
		}
		const fallbackName = `${event}-${String(item.json.id)}`;
		const signal = deadline.signal;
		if (event === 'new-mail')
			await attachLink.call(this, item, item.json.envelope_image_url, fallbackName, property, {
				maxBytes,
				signal,
			});
		else
			await attachFile.call(
				this,
				item,
				property,
				async () =>
					await downloadScanFile.call(this, String(item.json.id), {
						fallbackName,
						maxBytes,
						signal,
					}),
			);
		// Cut off by the poll's deadline: say so, not what the cut looked like.
		if (item.json.download_error !== undefined && deadline.signal.aborted)
			item.json.download_error = late;
	}
}
