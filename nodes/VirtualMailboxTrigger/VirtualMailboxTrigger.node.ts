import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	NodeApiError,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import { retryPolicy } from '../shared/state/retryPolicy';
import {
	attachLink,
	downloadFileOption,
	maxBytesOf,
	maxFileSizeOption,
	outputFieldOption,
} from '../shared/files';
import {
	apiRequest,
	forgetWebhookCredentials,
	getApiCredentials,
	segment,
	webhookCredentials,
} from '../shared/transport';
import { canonicalRecord, canonicalScanStatus, ruleValuesNotice } from '../shared/values';
import { parseJsonKeepingDigits } from '../shared/digits';
import { startCatchingUp } from './catchUp';
import { claimDelivery, claimStoreOf } from './claims';
import type { ClaimClock, DeduplicationHelpers } from './claims';
import { deliveryKeyOf, identityOf } from './deliveryKey';
import { detectEvent, type EventName, FILE_FIELD, scanEventOfType } from './events';
import { judge, stateOf } from './deliveries';
import { restShapeOf } from './restShape';
import { verifySignature } from './signature';

const EVENT_OPTIONS: Array<{ name: string; value: EventName; description: string }> = [
	{ name: 'New Mail', value: 'new-mail', description: 'A new mail item arrived in the mailbox' },
	{
		name: 'Scan Update',
		value: 'scan-update',
		description: 'A scan request changed status, notably when it is completed',
	},
	{
		name: 'Open Update',
		value: 'open-update',
		description: 'An open-and-scan (unboxing) request changed status',
	},
	{
		name: 'Shipment Update',
		value: 'shipment-update',
		description: 'A shipment, return, check deposit or pickup changed status',
	},
];

interface Options {
	downloadFile?: boolean;
	binaryPropertyName?: string;
	onlyCompleted?: boolean;
	includeDetails?: boolean;
	includeDelivery?: boolean;
	toleranceMinutes?: number;
	duplicateWindowMinutes?: number;
	dropStale?: boolean;
	maxFileSizeMb?: number;
	catchUp?: boolean;
	catchUpIntervalMinutes?: number;
}

export class VirtualMailboxTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Virtual Mailbox Trigger',
		name: 'virtualMailboxTrigger',
		icon: {
			light: 'file:../../icons/virtualMailbox.svg',
			dark: 'file:../../icons/virtualMailbox.dark.svg',
		},
		group: ['trigger'],
		// 1.1 behaves as 1 but spares n8n a Webhook-v1 expression it evaluates on every request to a
		// webhook node at version 1 (about 7 ms of CPU per delivery). 2 outputs the REST API's shape.
		version: [1, 1.1, 2],
		defaultVersion: 2,
		subtitle: '={{$parameter["events"].join(", ")}}',
		// n8n's node creator shows the Virtual Mailbox node and this trigger as one card with this
		// description (its merge takes the trigger's), also when adding an action: it names both.
		description:
			'File, scan and ship virtual mailbox mail, or start a workflow when ' +
			'mail arrives or a scan, open request or shipment changes status',
		defaults: { name: 'Virtual Mailbox Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'virtualMailboxApi', required: true }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName:
					'This node has two URLs (Webhook URLs above). The Test URL receives deliveries ' +
					'only while you click "Listen for test event"; the Production URL receives ' +
					'them once the workflow is active (published). Register the one you use in ' +
					'the dashboard (Settings → Automations → Webhooks), once for each selected ' +
					'event: the test one to try the trigger, the production one for real use. Deliveries ' +
					"are signed with the credential's Webhook Secret and are never retried.",
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['new-mail'],
				options: EVENT_OPTIONS,
			},
			// Version 2 outputs REST values; 1 and 1.1 the provider's upper-case ones (LETTER, INBOX).
			ruleValuesNotice(
				{ mail: true, scan: true, shipment: true },
				{ show: { '@version': [{ _cnd: { gte: 2 } }] } },
			),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Add Full Resource',
						name: 'includeDetails',
						type: 'boolean',
						default: false,
						description:
							'Whether to also fetch the full record behind the delivery and add it to the item: the ' +
							"mail item (new mail, open update), the scan's summary (scan update) or the shipment",
					},
					{
						displayName: 'Catch Up After Downtime',
						name: 'catchUp',
						type: 'boolean',
						default: true,
						displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
						description:
							'Whether to run, when the workflow is activated (every n8n start) and at the ' +
							'interval below, the new mail and scan or open completions that happened since the ' +
							'last one the trigger saw and that no delivery ran (the service never retries ' +
							'a delivery lost while n8n was down). Such items have caught_up: true. Each read ' +
							'is one list request per kind (mail, scans). The first activation runs nothing ' +
							'from before it; shipment updates and other scan statuses cannot be caught up.',
					},
					{
						displayName: 'Catch-Up Interval (Minutes)',
						name: 'catchUpIntervalMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 60,
						// Not shown only with Catch Up: n8n drops a collection option whose sibling was never
						// added (its default is not there), so the interval would be ignored.
						displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
						description:
							'Also catch up this often while the workflow is active (a webhook process down ' +
							'while n8n runs), 0 for only at activation, at least 1. Each time one list request ' +
							'per kind: at 60, 2 requests an hour (48 a day) with New Mail and a scan event, ' +
							'1 with one kind, and no execution when nothing is new. After deliveries arrived ' +
							'meanwhile it starts one execution, which ends at the trigger (they already ran).',
					},
					downloadFileOption(
						"Whether to download the file behind the delivery's pre-signed link (scan PDF, opened " +
							'contents, envelope photo) as binary data, since links expire 3 days after delivery',
					),
					{
						displayName: 'Drop Out-of-Order Updates',
						name: 'dropStale',
						type: 'boolean',
						default: true,
						description:
							'Whether to skip an update that arrives after a newer one for the ' +
							'same scan or shipment (for example "in process" arriving after ' +
							'"completed"), so the workflow never goes back to an older status',
					},
					{
						displayName: 'Duplicate Window (Minutes)',
						name: 'duplicateWindowMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 1440,
						description:
							'The service can send the same delivery more than once. A repeat of one ' +
							'received within this many minutes (same event, item, status and content) ' +
							'does not run the rest of the workflow again. 0 runs every delivery.',
					},
					{
						displayName: 'Include Delivery as Sent',
						name: 'includeDelivery',
						type: 'boolean',
						default: false,
						displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
						description:
							'Whether to add the delivery exactly as the service sent it (its ' +
							'own field names, number IDs and upper-case values such as LETTER) ' +
							'as a "delivery" field. The item\'s fields are already the ' +
							"REST API's shape, as Mail → Get and the Poll Trigger output them.",
					},
					maxFileSizeOption({ displayOptions: { show: { downloadFile: [true] } } }),
					{
						displayName: 'Only Completed',
						name: 'onlyCompleted',
						type: 'boolean',
						default: false,
						description:
							'Whether scan and open updates start the workflow only when their status is COMPLETED',
					},
					outputFieldOption,
					{
						displayName: 'Timestamp Tolerance (Minutes)',
						name: 'toleranceMinutes',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 5,
						description:
							'How far the time a delivery was signed may be from now ' +
							'(either way, for clock differences). Older deliveries ' +
							'are refused, so a captured one cannot be replayed later.',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			// The service has no webhook API: subscriptions are made by hand in its dashboard, so
			// activation re-checks the setup each time instead of registering anything.
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return false;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				forgetWebhookCredentials(this);
				const credentials = await getApiCredentials.call(this);
				// n8n shows only the message of an activation error (its toast drops the description),
				// so each of these messages says what to do.
				if (!String(credentials.webhookSecret ?? '').trim()) {
					throw new NodeOperationError(
						this.getNode(),
						'The Virtual Mailbox credential has no Webhook Secret: copy the signing secret ' +
							"from the dashboard (Settings → Automations → Webhooks) into the credential's " +
							'Webhook Secret field, then activate again. Without it no delivery can be verified.',
					);
				}
				if (!String(credentials.apiKey ?? '').trim()) {
					throw new NodeOperationError(
						this.getNode(),
						'The Virtual Mailbox credential has no API Key: create one ' +
							'in the dashboard (Settings → Developer → API keys), paste ' +
							"it into the credential's API Key field, then activate again.",
					);
				}
				const options = this.getNodeParameter('options', {}) as Options;
				for (const [value, label, min] of [
					[options.toleranceMinutes, 'Timestamp Tolerance (Minutes)', 1],
					[options.duplicateWindowMinutes, 'Duplicate Window (Minutes)', 0],
				] as const) {
					if (value !== undefined && !validMinutes(value, min)) {
						throw new NodeOperationError(
							this.getNode(),
							`${label} must be a number of at least ${min}, got "${String(value)}"`,
						);
					}
				}
				try {
					await apiRequest.call(this, 'GET', '/v1/account');
				} catch (error) {
					throw withDescriptionInMessage(this.getNode(), error);
				}
				const events = this.getNodeParameter('events', []) as string[];
				this.logger.info(
					`Virtual Mailbox Trigger active: register ${this.getNodeWebhookUrl('default')} ` +
						`in the dashboard for ${events.join(', ')} (one subscription per event).`,
				);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				forgetWebhookCredentials(this);
				// `npm run dev` reads the URL in this line and in create()'s to keep its
				// subscriptions in step.
				this.logger.info(
					'Virtual Mailbox Trigger deactivated: remove or pause the dashboard subscriptions ' +
						`of ${this.getNodeWebhookUrl('default')} if they should stop sending.`,
				);
				return true;
			},
		},
	};

	/** Catches up on what never reached the webhook; execute() claims it like deliveries. */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startCatchingUp.call(this);
	}

	/**
	 * Claims the delivery here, not in webhook(): in queue mode this runs on the worker, where n8n's
	 * deduplication store is reachable. A delivery already claimed ends with no items.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const options = this.getNodeParameter('options', 0, {}) as Options;
		// Test deliveries, manual runs and retries of a failed execution run as asked; deliveries
		// (webhook) and caught-up events (trigger, catchUp.ts) claim theirs.
		const mode = this.getMode();
		if ((mode !== 'webhook' && mode !== 'trigger') || options.duplicateWindowMinutes === 0)
			return [items];
		const helpers = this.helpers;
		// An n8n without the store (or part of it) runs every execution.
		if (
			[
				helpers.checkProcessedAndRecord,
				helpers.getProcessedDataCount,
				helpers.clearAllProcessedItems,
				helpers.removeProcessed,
			].some((f) => typeof f !== 'function')
		)
			return [items];
		const store = claimStoreOf(helpers as DeduplicationHelpers);
		const scope = `${this.getWorkflow().id ?? ''}/${this.getNode().id}`;
		const clock: ClaimClock = { now: () => Date.now(), wait: sleep, random: Math.random };
		const warn = (message: string) => this.logger.warn(`Virtual Mailbox Trigger: ${message}`);
		const kept: INodeExecutionData[] = [];
		const typeVersion = this.getNode().typeVersion;
		for (const item of items) {
			const key = deliveryKeyOf(item.json, typeVersion);
			const outcome =
				key === undefined ? 'new' : await claimDelivery(scope, key, store, clock, warn);
			if (outcome === 'duplicate') {
				this.logger.info(
					`Virtual Mailbox Trigger: ${key} was already run by another execution; this copy ends here`,
				);
				continue;
			}
			if (outcome === 'unsettled')
				this.logger.warn(
					`Virtual Mailbox Trigger: the claim of ${key} did ` +
						'not settle; running it rather than risk losing it',
				);
			kept.push(item);
		}
		return [kept];
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();
		const options = this.getNodeParameter('options', {}) as Options;
		const selected = this.getNodeParameter('events', []) as string[];
		const reject = (status: number, reason: string): IWebhookResponseData => {
			this.logger.warn(`Virtual Mailbox Trigger rejected a delivery (${status}): ${reason}`);
			res.status(status).json({ error: status === 401 ? 'Unauthorized' : 'Bad Request' });
			return { noWebhookResponse: true };
		};

		// Nothing that fails to verify may start an execution: a body n8n cannot hand over (too large,
		// a broken stream) is answered here, never thrown (a throw is a failed execution in n8n).
		let rawBody = (req as { rawBody?: Buffer }).rawBody;
		if (
			!Buffer.isBuffer(rawBody) &&
			typeof (req as { readRawBody?: () => Promise<void> }).readRawBody === 'function'
		) {
			try {
				await (req as unknown as { readRawBody: () => Promise<void> }).readRawBody();
			} catch (error) {
				const tooLarge = /too large|limit/i.test((error as Error).message ?? '');
				return reject(tooLarge ? 413 : 400, `body could not be read: ${(error as Error).message}`);
			}
			rawBody = (req as { rawBody?: Buffer }).rawBody;
		}
		const now = Date.now();
		const toleranceMs =
			minutesOption(this, options.toleranceMinutes, 5, 1, 'Timestamp Tolerance') * 60_000;
		const verify = async (fresh: boolean) => {
			const { credentials, cached } = await webhookCredentials.call(this, now, fresh);
			// Pasted secrets often carry a trailing newline or spaces: the signing secret never does.
			// The previous secret counts only during a rotation (the field is hidden otherwise).
			const previous =
				credentials.webhookRotation === true ? credentials.previousWebhookSecret : '';
			const secrets = [credentials.webhookSecret, previous].map((secret) =>
				String(secret ?? '').trim(),
			);
			return { cached, verdict: verifySignature(req.headers, rawBody, secrets, now, toleranceMs) };
		};
		let check;
		try {
			check = await verify(false);
			// The kept credential may predate a new secret: read it again before rejecting, but only
			// when a new secret could change the answer (not for a stale or malformed delivery).
			if (!check.verdict.ok && check.verdict.secretMayHelp && check.cached)
				check = await verify(true);
		} catch (error) {
			return reject(401, `credential unavailable: ${(error as Error).message}`);
		}
		const { verdict } = check;
		if (!verdict.ok) return reject(401, verdict.reason);

		let body: IDataObject;
		try {
			// Integers above 2^53 (an id: the spec shows no bound) keep their digits, as text.
			body = parseJsonKeepingDigits((rawBody as Buffer).toString('utf8')) as IDataObject;
		} catch {
			return reject(400, 'body is not JSON');
		}
		if (!body || typeof body !== 'object' || Array.isArray(body))
			return reject(400, 'body is not a JSON object');

		// Ignored deliveries are still acknowledged with 200: n8n answers (onReceived) only after
		// it has saved the workflow's static data, so the next delivery already sees this one.
		const ignore = (reason: string): IWebhookResponseData => ({
			webhookResponse: { received: true, ignored: reason },
		});
		let event = detectEvent(body, selected);
		// An update that tells neither scan nor open, both selected: the scan's type says which.
		if (!event && body.uuid !== undefined) event = await scanEventOf.call(this, body.uuid);
		if (!event) {
			this.logger.warn(
				'Virtual Mailbox Trigger: unrecognised delivery ' +
					`ignored (fields: ${Object.keys(body).join(', ')})`,
			);
			return ignore('unrecognised payload');
		}
		if (!selected.includes(event)) return ignore(`${event} not selected`);
		const identity = identityOf(event, body);
		if (
			options.onlyCompleted &&
			(event === 'scan-update' || event === 'open-update') &&
			canonicalScanStatus(identity.status) !== 'COMPLETED'
		) {
			return ignore('not completed');
		}
		const typeVersion = this.getNode().typeVersion;
		const item: INodeExecutionData = {
			json: { event, ...(typeVersion >= 2 ? restShapeOf(event, body) : body) },
		};
		if (typeVersion >= 2 && options.includeDelivery) item.json.delivery = body;
		// A test delivery (Test URL, "Listen for test event") runs as asked and records nothing: the
		// Production URL's copy of the same delivery must still run, and nothing a test saw may be
		// written into the active workflow's static data.
		const outcome =
			this.getMode() === 'manual'
				? 'new'
				: judge(
						stateOf(this.getWorkflowStaticData('node')),
						{
							// The claim's key; an item it cannot key (no id) keys on the delivery as sent.
							key:
								deliveryKeyOf(item.json, typeVersion) ?? `${identity.resource}|${identity.version}`,
							resource: identity.resource,
							version: identity.version,
							signedAt: verdict.timestamp,
							trackOrder: event !== 'new-mail',
						},
						now,
						{
							windowMs:
								minutesOption(this, options.duplicateWindowMinutes, 1440, 0, 'Duplicate Window') *
								60_000,
							dropStale: options.dropStale ?? true,
						},
						`${this.getWorkflow().id ?? ''}/${this.getNode().name}`,
					);
		if (outcome !== 'new') {
			this.logger.debug(
				`Virtual Mailbox Trigger: ${outcome} ${event} delivery for ${identity.resource} ignored`,
			);
			return ignore(outcome);
		}

		if (!options.includeDetails && !options.downloadFile) return { workflowData: [[item]] };
		// n8n answers the sender only when this returns, and the service drops a delivery it waits too
		// long for (it never retries): enrichment gets a deadline. It works on a copy, so a late finish
		// cannot change the item once it is handed to n8n.
		// Once answered without them, the read and the download are stopped rather than left running
		// (and retried) in the background.
		const enriched: INodeExecutionData = { json: { ...item.json } };
		const answered = new AbortController();
		const enrichment = (async () => {
			// A kept credential may predate a new API key: a 401 reads the stored one again, once.
			const refresh = check.cached
				? async () => void (await webhookCredentials.call(this, Date.now(), true))
				: undefined;
			if (options.includeDetails)
				await addDetails.call(this, event, body, enriched, answered.signal, refresh);
			if (options.downloadFile)
				await addFile.call(
					this,
					event,
					body,
					enriched,
					options.binaryPropertyName || 'data',
					maxBytesOf({ maxFileSizeMb: options.maxFileSizeMb }),
					answered.signal,
				);
			return true;
		})();
		const finished = await Promise.race([
			enrichment,
			sleep(retryPolicy.answerWithinMs).then(() => false),
		]);
		if (finished) return { workflowData: [[enriched]] };
		answered.abort();
		item.json.enrichment_error =
			'Add Full Resource or Download File did not finish within ' +
			`${retryPolicy.answerWithinMs / 1000} s, so the delivery was ` +
			'answered without them (the service drops deliveries it waits too ' +
			'long for). Fetch the record or file in the workflow instead.';
		return { workflowData: [[item]] };
	}
}

/** n8n's activation toast shows only the message: the description is folded into it. */
function withDescriptionInMessage(node: INode, error: unknown): Error {
	const { message = '', description } = error as { message?: string; description?: string | null };
	if (!description) return error as Error;
	return new NodeOperationError(
		node,
		`${message.replace(/\.?$/, '.')} ${description.replace(/\s*\n\s*/g, ' ')}`,
		{ description },
	);
}

const validMinutes = (value: unknown, min: number): value is number =>
	typeof value === 'number' && Number.isFinite(value) && value >= min;

/**
 * A minutes option as a number. Activation refuses an invalid one; should an expression still
 * produce one at delivery time, the default applies (never NaN, which would turn a check off).
 */
function minutesOption(
	ctx: IWebhookFunctions,
	value: unknown,
	fallback: number,
	min: number,
	label: string,
): number {
	if (value === undefined) return fallback;
	if (validMinutes(value, min)) return value;
	ctx.logger.warn(
		`Virtual Mailbox Trigger: ${label} "${String(value)}" ` +
			`is not a number of at least ${min}; using ${fallback}`,
	);
	return fallback;
}

/** Fetch the full record behind the delivery; a failure is described in the item, never lost. */
async function addDetails(
	this: IWebhookFunctions,
	event: EventName,
	body: IDataObject,
	item: INodeExecutionData,
	signal: AbortSignal,
	refresh?: () => Promise<void>,
): Promise<void> {
	const [key, path] =
		event === 'scan-update'
			? ['scan_summary', `/v1/scans/${segment(String(body.uuid))}/summary`]
			: event === 'shipment-update'
				? ['shipment', `/v1/shipments/${segment(String(body.id))}`]
				: ['mail_item', `/v1/mails/${segment(String(body.id))}`];
	const fetchRecord = async () => {
		const record = await apiRequest.call(this, 'GET', path, { signal });
		item.json[key] = canonicalRecord(record, key === 'shipment' ? 'shipment' : 'mail');
	};
	try {
		await fetchRecord();
	} catch (error) {
		if (refresh && (error as NodeApiError).context?.status === 401) {
			try {
				await refresh();
				await fetchRecord();
				return;
			} catch (again) {
				item.json[`${key}_error`] = (again as Error).message;
				return;
			}
		}
		item.json[`${key}_error`] = (error as Error).message;
	}
}

/**
 * Whether a scan or open update the payload does not tell apart is a scan or an open: the scan's
 * `type` (GET /v1/scans/{uuid}). Should the API not say, it runs as a scan update (logged): an
 * event is never lost for want of its label.
 */
async function scanEventOf(this: IWebhookFunctions, uuid: unknown): Promise<EventName> {
	try {
		const scan = (await apiRequest.call(
			this,
			'GET',
			`/v1/scans/${segment(String(uuid))}`,
		)) as IDataObject;
		const event = scanEventOfType(scan?.type);
		if (event) return event;
	} catch (error) {
		this.logger.warn(
			`Virtual Mailbox Trigger: could not read scan ${String(uuid)} to tell a scan ` +
				`from an open update (${(error as Error).message}); running it as a scan update`,
		);
		return 'scan-update';
	}
	this.logger.warn(
		`Virtual Mailbox Trigger: scan ${String(uuid)} has ` +
			'no known type; running its update as a scan update',
	);
	return 'scan-update';
}

/** Downloads the file before its link expires; a failure is described in the item. */
async function addFile(
	this: IWebhookFunctions,
	event: EventName,
	body: IDataObject,
	item: INodeExecutionData,
	property: string,
	maxBytes: number,
	signal: AbortSignal,
): Promise<void> {
	const field = FILE_FIELD[event];
	if (!field) return;
	await attachLink.call(
		this,
		item,
		body[field],
		`${event}-${String(body.uuid ?? body.id)}`,
		property,
		{ missing: `The delivery has no ${field}`, maxBytes, signal },
	);
}
