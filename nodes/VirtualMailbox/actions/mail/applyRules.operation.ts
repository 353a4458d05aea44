import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAIL_TYPES } from '../../../shared/constants';
import { folderLocator, optionsOf } from '../../../shared/descriptions';
import { forOperation } from '../../../shared/display';
import { executionFolders, folderByName } from '../../../shared/folders';
import { folderViews } from '../../../shared/state/folderViews';
import { apiRequest, segment } from '../../../shared/transport';
import { checkId, locatorValue } from '../../../shared/validate';
import { createFolderIfMissingOption, mailIdField } from './Mail.fields';
import {
	type Action,
	checkFolder,
	decide,
	type Facts,
	flagOf,
	factsOfDetail,
	factsOfItem,
	mailIdOfItem,
	mailItemOf,
	mergeFacts,
	parseRules,
	type Rule,
	type MailState,
	RuleError,
	stateOfItem,
	stateOfMail,
} from './filingRules';

const TEXT_FIELDS = ['sender', 'recipient', 'label', 'summary', 'anyText'];

const ruleValues: INodeProperties[] = [
	{
		displayName: 'Field',
		name: 'field',
		type: 'options',
		default: 'anyText',
		description:
			'What of the mail item the rule looks at. Any Text finds the word wherever the mail ' +
			'item has it ("magazine" matches mail of type magazine, "IRS" a sender named IRS Ogden).',
		options: [
			{
				name: 'Any Text',
				value: 'anyText',
				description: 'Sender, recipient, mail type, scan label or scan summary',
			},
			{ name: 'Mail Type', value: 'mailType' },
			{ name: 'Recipient', value: 'recipient' },
			{
				name: 'Scan Label (AI)',
				value: 'label',
				description: 'The AI label of the mail item’s scan, on plans with scan labeling',
			},
			{
				name: 'Scan Summary (AI)',
				value: 'summary',
				description: 'The AI summary of the mail item’s scan, on plans with scan labeling',
			},
			{ name: 'Sender', value: 'sender' },
			{ name: 'Weight (Lb)', value: 'weight' },
		],
	},
	{
		displayName: 'Comparison',
		name: 'comparison',
		type: 'options',
		default: 'containsWord',
		displayOptions: { show: { field: TEXT_FIELDS } },
		options: [
			{
				name: 'Contains',
				value: 'contains',
				description: 'Anywhere, even inside a word ("IRS" is in "First")',
			},
			{
				name: 'Contains the Word',
				value: 'containsWord',
				description: 'As a whole word or words ("IRS" is in "IRS Ogden", not in "First")',
			},
			{ name: 'Is', value: 'is' },
			{ name: 'Is One Of', value: 'isOneOf', description: 'Values separated by commas' },
			{
				name: 'Matches a Pattern',
				value: 'matchesPattern',
				description: 'A regular expression, such as ^(IRS|Internal Revenue)',
			},
			{ name: 'Starts With', value: 'startsWith' },
		],
	},
	{
		displayName: 'Value',
		name: 'value',
		type: 'string',
		default: '',
		placeholder: 'IRS',
		description: 'The text to look for. Letter case is ignored unless Case Sensitive is on.',
		displayOptions: { show: { field: TEXT_FIELDS } },
	},
	{
		displayName: 'Case Sensitive',
		name: 'caseSensitive',
		type: 'boolean',
		default: false,
		description: 'Whether upper and lower case letters must match exactly',
		displayOptions: { show: { field: TEXT_FIELDS } },
	},
	{
		displayName: 'Mail Types',
		name: 'mailTypes',
		type: 'multiOptions',
		default: [],
		description: 'The rule matches mail of any of these types',
		displayOptions: { show: { field: ['mailType'] } },
		options: optionsOf(MAIL_TYPES),
	},
	{
		displayName: 'Comparison',
		name: 'weightComparison',
		type: 'options',
		default: 'greaterThan',
		displayOptions: { show: { field: ['weight'] } },
		options: [
			{ name: 'Is at Least', value: 'atLeast' },
			{ name: 'Is at Most', value: 'atMost' },
			{ name: 'Is Equal To', value: 'equals' },
			{ name: 'Is Greater Than', value: 'greaterThan' },
			{ name: 'Is Less Than', value: 'lessThan' },
		],
	},
	{
		displayName: 'Weight (Lb)',
		name: 'weight',
		type: 'number',
		default: 1,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		displayOptions: { show: { field: ['weight'] } },
	},
	folderLocator({
		name: 'folder',
		default: { mode: 'name', value: '' },
		description:
			'File matching mail into this folder: pick it, give ' +
			'its ID, or give its name (a missing name is created)',
	}),
	{
		displayName: 'Mark Read',
		name: 'markRead',
		type: 'boolean',
		default: false,
		description: 'Whether to also mark matching mail read',
	},
	{
		displayName: 'Archive',
		name: 'archive',
		type: 'boolean',
		default: false,
		description: 'Whether to also archive matching mail (move it out of the inbox)',
	},
	{
		displayName: 'Rule Name',
		name: 'name',
		type: 'string',
		default: '',
		placeholder: 'Taxes',
		description: 'Optional: a name shown in the output when this rule matches',
	},
];

const properties: INodeProperties[] = [
	{
		...mailIdField,
		default: { mode: 'id', value: '={{ $json.mail_id ?? $json.id }}' },
		description:
			'The mail item to file. The default takes it from the input item: a mail item ' +
			'from a trigger, the Poll Trigger or Get Many (its ID), or a scan (its mail_id).',
	},
	{
		displayName: 'Rules',
		name: 'rules',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Rule',
		// One rule to fill in from the start, as n8n's Switch node does.
		default: {
			rule: [
				{
					field: 'anyText',
					comparison: 'containsWord',
					value: '',
					folder: { __rl: true, mode: 'name', value: '' },
				},
			],
		},
		description:
			'Checked in order; the first rule that matches files the mail item. Requests for N items: ' +
			'1 folder list per run (when a folder is given by name, with Preview Only, or when ' +
			'an item says its mail is already in a folder given by ID; +2 per folder created) and ' +
			'1 update per filed item (+1 when archived); what is already so (in the folder, read, ' +
			'archived) is skipped, so running again changes nothing. An item whose own fields do not ' +
			'decide, or that does not say where its mail item is (a scan), is read once (+1 for a ' +
			'scan summary): a Get Many item has no weight; a new-mail delivery has no scan label ' +
			'or summary, where Any Text also looks when its sender, recipient and type do not match.',
		options: [{ displayName: 'Rule', name: 'rule', values: ruleValues }],
	},
	{
		displayName: 'When No Rule Matches',
		name: 'noMatch',
		type: 'options',
		default: 'leave',
		options: [
			{ name: 'Leave It Unchanged', value: 'leave' },
			{ name: 'File Into a Folder', value: 'file' },
		],
	},
	folderLocator({
		name: 'noMatchFolder',
		displayName: 'Fallback Folder',
		default: { mode: 'name', value: '' },
		description: 'Mail no rule matches goes into this folder (a missing name is created)',
		displayOptions: { show: { noMatch: ['file'] } },
	}),
	{
		displayName: 'Preview Only',
		name: 'previewOnly',
		type: 'boolean',
		default: false,
		description:
			'Whether to only output what each rule would do, without changing anything ' +
			'(nothing filed, marked, archived or created). Try rules on your mailbox with Get ' +
			'Many → File by Rules, then turn this off. An expression may set it per item.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			createFolderIfMissingOption(
				'Whether to create a folder given by name that does not exist yet (on ' +
					'by default). Off: such an item fails, listing the folders there are.',
			),
			{
				displayName: 'Fallback: Archive',
				name: 'noMatchArchive',
				type: 'boolean',
				default: false,
				description:
					'Whether to also archive mail that no rule matches ' +
					'(with When No Rule Matches: File Into a Folder)',
			},
			{
				displayName: 'Fallback: Mark Read',
				name: 'noMatchMarkRead',
				type: 'boolean',
				default: false,
				description:
					'Whether to also mark mail that no rule matches ' +
					'read (with When No Rule Matches: File Into a Folder)',
			},
		],
	},
];

export const description = forOperation('mail', 'applyRules', properties);

interface Plan {
	rules: Rule[];
	fallback?: Action;
	preview: boolean;
	createIfMissing: boolean;
}

/** Every parameter of item `i` checked, before any request; a bad rule names its position. */
function readPlan(this: IExecuteFunctions, i: number): Plan {
	let plan: Plan | undefined;
	let problem: RuleError | undefined;
	try {
		const options = this.getNodeParameter('options', i, {}) as IDataObject;
		const fallback =
			this.getNodeParameter('noMatch', i, 'leave') === 'file'
				? {
						folder: checkFolder(
							this.getNodeParameter('noMatchFolder', i, undefined),
							0,
							'Fallback Folder',
						),
						markRead: flagOf(options.noMatchMarkRead, 0, 'Fallback: Mark Read'),
						archive: flagOf(options.noMatchArchive, 0, 'Fallback: Archive'),
					}
				: undefined;
		const rules = parseRules(this.getNodeParameter('rules', i, {}));
		plan = {
			rules,
			fallback,
			preview: flagOf(this.getNodeParameter('previewOnly', i, false), 0, 'Preview Only'),
			createIfMissing: flagOf(options.createFolderIfMissing, 0, 'Create Folder If Missing', true),
		};
	} catch (error) {
		if (!(error instanceof RuleError))
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
		problem = error;
	}
	if (problem)
		throw new NodeOperationError(
			this.getNode(),
			problem.position === 0
				? problem.message.replace(/^Rule 0: (.)/, (_, c: string) => c.toUpperCase())
				: problem.message,
			{ itemIndex: i },
		);
	if (!plan || plan.rules.length === 0)
		throw new NodeOperationError(this.getNode(), 'No rules: add at least one rule under Rules', {
			itemIndex: i,
		});
	return plan;
}

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	// All items' rules are checked before the first item's request, so a bad rule changes nothing
	// (with Continue On Fail, each item checks its own and fails alone).
	if (i === 0 && !this.continueOnFail())
		for (let k = 1; k < this.getInputData().length; k++) {
			readPlan.call(this, k);
			checkId.call(
				this,
				locatorValue(this.getNodeParameter('mailId', k, '')),
				'Mail ID',
				'numeric',
				k,
			);
		}
	const plan = readPlan.call(this, i);
	const mailId = checkId.call(
		this,
		locatorValue(this.getNodeParameter('mailId', i, '')),
		'Mail ID',
		'numeric',
		i,
	);
	const json = this.getInputData()[i]?.json ?? {};
	// The item's own fields describe this mail only when it is the item's mail.
	const own = mailIdOfItem(json) === mailId;
	let facts: Facts = own ? factsOfItem(json) : {};
	const known: Known = {
		mail: own ? mailItemOf(json) : undefined,
		state: own ? stateOfItem(json) : {},
		read: false,
	};
	let readSummary = false;

	const decideNow = () => {
		try {
			return decide(plan.rules, facts);
		} catch (error) {
			// A pattern stopped for backtracking: the item fails, naming the rule.
			throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex: i });
		}
	};
	let decision = decideNow();
	while (decision.kind === 'need') {
		const wanted = decision.facts;
		const summaryOnly = wanted.every((f) => f === 'summary');
		if (
			facts.scan?.completed &&
			!readSummary &&
			(summaryOnly || (known.read && wanted.includes('summary')))
		) {
			readSummary = true;
			facts = await withSummary.call(this, facts, facts.scan.id, i);
		} else if (!known.read) {
			const detail = await readMail.call(this, mailId, known, i);
			// The item may be older than the answer: the answer wins for what it says.
			facts = mergeFacts(factsOfDetail(detail), facts);
		} else {
			// Nothing more to read: what is still unknown, the mail item does not have.
			facts = mergeFacts(facts, Object.fromEntries(wanted.map((f) => [f, null])) as Facts);
		}
		decision = decideNow();
	}

	const rule = decision.kind === 'matched' ? decision.rule : undefined;
	const action = rule?.action ?? plan.fallback;
	const output: IDataObject = {
		mail_id: mailId,
		matched_rule: rule ? rule.position : null,
		rule_name: rule ? rule.name || null : null,
		matched_on: rule ? rule.says : null,
		...(decision.skipped.length > 0
			? { skipped_rules: decision.skipped as unknown as IDataObject[] }
			: {}),
	};
	if (!action) {
		return {
			...output,
			decision: 'No rule matched: left unchanged',
			preview: plan.preview,
			mail: known.mail ?? { id: mailId },
		};
	}
	const done = await act.call(this, mailId, action, plan, i, rule ? rule.position : 0, known);
	return {
		...output,
		decision: `${rule ? '' : 'No rule matched: '}${done.words}`,
		folder_id: done.folderId ?? null,
		folder_name: done.folderName ?? null,
		// What this run did (never in a preview), what was already so, and what a real run would do.
		filed: done.filed,
		folder_created: done.created,
		marked_read: done.markedRead,
		archived: done.archived,
		already_in_folder: done.already.inFolder,
		already_read: done.already.read,
		already_archived: done.already.archived,
		...(plan.preview
			? {
					would_file: done.would.file,
					would_create_folder: done.would.createFolder,
					would_mark_read: done.would.markRead,
					would_archive: done.would.archive,
				}
			: {}),
		preview: plan.preview,
		mail: known.mail ?? { id: mailId },
	};
}

/** The mail item as far as this run knows it: the input's, or read (once), or a write's answer. */
interface Known {
	mail?: IDataObject;
	/** Where the mail item is, as the input item says or as read. */
	state: MailState;
	read: boolean;
}

async function readMail(
	this: IExecuteFunctions,
	mailId: string,
	known: Known,
	i: number,
): Promise<IDataObject> {
	known.read = true;
	known.mail = await apiRequest.call(this, 'GET', `/v1/mails/${segment(mailId)}`, { itemIndex: i });
	known.state = stateOfMail(known.mail);
	return known.mail;
}

/**
 * The summary is never on the mail item. A plan without scan labeling may refuse the read (403):
 * the rules that need it are then skipped, saying so.
 */
async function withSummary(
	this: IExecuteFunctions,
	facts: Facts,
	scanId: string,
	i: number,
): Promise<Facts> {
	let summary: IDataObject = {};
	let failure: unknown;
	try {
		summary = await apiRequest.call(this, 'GET', `/v1/scans/${segment(scanId)}/summary`, {
			itemIndex: i,
		});
	} catch (error) {
		failure = error;
	}
	if (failure !== undefined) {
		if (statusOf(failure) !== 403) throw failure;
		return {
			...facts,
			summary: null,
			unavailable: {
				...facts.unavailable,
				summary:
					'the API refused it (403), as on a plan without scan labeling (GET /v1/scans/{id}/summary)',
			},
		};
	}
	const points = Array.isArray(summary.summary)
		? summary.summary.map(String).filter((p) => p.trim() !== '')
		: [];
	return mergeFacts(facts, {
		summary: points.length > 0 ? points.join('\n') : null,
		label: typeof summary.label === 'string' && summary.label.trim() !== '' ? summary.label : null,
	});
}

const statusOf = (error: unknown): number | undefined => {
	const status = (error as { context?: { status?: unknown } })?.context?.status;
	return typeof status === 'number' ? status : undefined;
};

/** The API refuses to archive from these (409). */
const NOT_ARCHIVABLE = ['quarantine', 'discard_request'];

interface Done {
	words: string;
	folderId?: string;
	folderName?: string | null;
	filed: boolean;
	created: boolean;
	markedRead: boolean;
	archived: boolean;
	already: { inFolder: boolean; read: boolean; archived: boolean };
	would: { file: boolean; createFolder: boolean; markRead: boolean; archive: boolean };
}

/**
 * Each write only when not already in effect. An archive refused (409) because the mail item is
 * already archived (an input item older than the mailbox) is done; any other refusal fails.
 */
async function act(
	this: IExecuteFunctions,
	mailId: string,
	action: Action,
	plan: Plan,
	i: number,
	position: number,
	known: Known,
): Promise<Done> {
	const { folder } = action;
	const who = position === 0 ? 'Fallback Folder' : `Rule ${position}`;
	let folderId: string | undefined = folder.mode === 'name' ? undefined : folder.value;
	let folderName = folder.mode === 'name' ? folder.value : folder.cachedResultName;
	let created = false;
	const nothing = { inFolder: false, read: false, archived: false };
	if (folder.mode === 'name') {
		const found = await folderByName.call(this, folder.value, i, {
			use: 'file',
			createIfMissing: plan.createIfMissing,
			createOption: true,
			preview: plan.preview,
		});
		folderId = found.id;
		created = found.created === true;
		folderName = found.name ?? folder.value;
	} else if (plan.preview || folderViews.get(this) || known.state.folderId === folderId) {
		// A folder by ID: the preview checks it against the run's folder list; a real run names it
		// when the list is read, and checks it when the item says the mail is in it (deleted since?).
		const listed = (await executionFolders.call(this, i)).find(
			(f) => f.id !== undefined && String(f.id) === folderId,
		);
		if (listed) folderName = String(listed.name ?? folderName ?? '') || folderName;
		else if (!plan.preview) {
			throw new NodeOperationError(
				this.getNode(),
				`${who} (folder ID ${folderId}): the folder does not exist (deleted?)`,
				{ itemIndex: i, description: 'Pick the folder again from the list, or give its name.' },
			);
		} else {
			return {
				words: `Would fail: ${who}'s folder ID ${folderId} does not exist`,
				folderId,
				folderName: null,
				filed: false,
				created: false,
				markedRead: false,
				archived: false,
				already: nothing,
				would: { file: false, createFolder: false, markRead: false, archive: false },
			};
		}
	}

	// What is already so: a folder that did not exist holds nothing yet.
	let state = known.state;
	const unknown =
		(!created && state.folderId === undefined) ||
		(action.markRead && state.isRead === undefined) ||
		(action.archive && state.status === undefined);
	if (unknown && !known.read) {
		await readMail.call(this, mailId, known, i);
		state = known.state;
	}
	const already = {
		inFolder: !created && folderId !== undefined && state.folderId === folderId,
		read: action.markRead && state.isRead === true,
		archived: action.archive && state.status === 'archived',
	};
	const refused =
		action.archive && !already.archived && NOT_ARCHIVABLE.includes(state.status ?? '');
	const shown = `"${folderName ?? folderId}"`;
	const creation = created
		? plan.preview
			? ' (folder would be created)'
			: ' (folder created)'
		: '';
	const parts = [
		already.inFolder
			? `Already in ${shown}`
			: `${plan.preview ? 'Would file' : 'Filed'} into ${shown}${creation}`,
		...(action.markRead
			? [already.read ? 'already read' : plan.preview ? 'would be marked read' : 'marked read']
			: []),
		...(action.archive
			? [
					already.archived
						? 'already archived'
						: plan.preview
							? refused
								? `would fail to be archived (it is ${state.status}; ` +
									'the API archives mail in the inbox only)'
								: 'would be archived'
							: 'archived',
				]
			: []),
	];
	if (plan.preview) {
		return {
			words: parts.join(', '),
			folderId,
			folderName,
			filed: false,
			created: false,
			markedRead: false,
			archived: false,
			already,
			would: {
				file: !already.inFolder,
				createFolder: created,
				markRead: action.markRead && !already.read,
				archive: action.archive && !already.archived && !refused,
			},
		};
	}

	const body: IDataObject = {
		...(already.inFolder ? {} : { folder_id: folderId }),
		...(action.markRead && !already.read ? { is_read: true } : {}),
	};
	if (Object.keys(body).length > 0) {
		let failure: Error | undefined;
		try {
			known.mail = await apiRequest.call(this, 'PATCH', `/v1/mails/${segment(mailId)}`, {
				body,
				itemIndex: i,
			});
		} catch (error) {
			failure = error as Error;
		}
		if (failure) {
			// Which rule's filing failed, for a folder ID that no longer exists most of all.
			failure.message =
				`${who} (folder ${folder.mode === 'name' ? `"${folderName}"` : `ID ${folderId}`}): ` +
				`${failure.message}`;
			throw failure;
		}
		// A folder by ID is named as the preview names it: the update's answer carries its name.
		const answer = known.mail?.folder as IDataObject | null | undefined;
		if (
			!already.inFolder &&
			folder.mode !== 'name' &&
			typeof answer?.name === 'string' &&
			String(answer.id) === folderId
		) {
			folderName = answer.name;
			parts[0] = `Filed into "${folderName}"`;
		}
	}
	let archived = false;
	if (action.archive && !already.archived) {
		let failure: Error | undefined;
		try {
			known.mail = await apiRequest.call(this, 'POST', `/v1/mails/${segment(mailId)}/archive`, {
				itemIndex: i,
			});
			archived = true;
		} catch (error) {
			failure = error as Error;
		}
		// A conflict is "already archived" only when the mail item now says so.
		if (failure && statusOf(failure) === 409) {
			await readMail.call(this, mailId, known, i);
			if (known.state.status === 'archived') {
				already.archived = true;
				parts[parts.length - 1] = 'already archived';
				failure = undefined;
			}
		}
		if (failure) {
			// A filing done before it stays done: a re-run must not be read as a first try.
			const filedFirst = Object.keys(body).length > 0;
			failure.message = `${who} (archive): ${filedFirst ? `the mail item was filed into "${folderName ?? folderId}", then archiving failed: ` : ''}${failure.message}`;
			throw failure;
		}
	}
	return {
		words: parts.join(', '),
		folderId,
		folderName,
		filed: !already.inFolder,
		created,
		markedRead: action.markRead && !already.read,
		archived,
		already,
		would: { file: false, createFolder: false, markRead: false, archive: false },
	};
}
