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
	factsOfDetail,
	factsOfItem,
	mailIdOfItem,
	mergeFacts,
	parseRules,
	type Rule,
	RuleError,
} from './filingRules';

const TEXT_FIELDS = ['sender', 'recipient', 'label', 'summary', 'anyText'];

const ruleValues: INodeProperties[] = [
	{
		displayName: 'Field',
		name: 'field',
		type: 'options',
		default: 'anyText',
		description:
			'What of the mail item the rule looks at. Any Text finds the word wherever the mail item has it ("magazine" matches mail of type magazine, "IRS" a sender named IRS Ogden).',
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
			'File matching mail into this folder: pick it, give its ID, or give its name (a missing name is created)',
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
			'The mail item to file. The default takes it from the input item: a mail item from a trigger, the Poll Trigger or Get Many (its ID), or a scan (its mail_id).',
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
			'Checked in order; the first rule that matches files the mail item. Requests for N items: 1 folder list per run (when a folder is given by name, or with Preview Only; +2 per folder created) and 1 update per filed item (+1 when archived). An item whose own fields do not decide is read once (+1 for a scan summary): a Get Many item has no weight; a new-mail delivery has no scan label or summary, where Any Text also looks when its sender, recipient and type do not match.',
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
			'Whether to only output what each rule would do, without changing anything (nothing filed, marked, archived or created). Try rules on your mailbox with Get Many → File by Rules, then turn this off.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			createFolderIfMissingOption(
				'Whether to create a folder given by name that does not exist yet (on by default). Off: such an item fails, listing the folders there are.',
			),
			{
				displayName: 'Fallback: Archive',
				name: 'noMatchArchive',
				type: 'boolean',
				default: false,
				description:
					'Whether to also archive mail that no rule matches (with When No Rule Matches: File Into a Folder)',
			},
			{
				displayName: 'Fallback: Mark Read',
				name: 'noMatchMarkRead',
				type: 'boolean',
				default: false,
				description:
					'Whether to also mark mail that no rule matches read (with When No Rule Matches: File Into a Folder)',
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
						markRead: options.noMatchMarkRead === true,
						archive: options.noMatchArchive === true,
					}
				: undefined;
		const rules = parseRules(this.getNodeParameter('rules', i, {}));
		plan = {
			rules,
			fallback,
			preview: this.getNodeParameter('previewOnly', i, false) === true,
			createIfMissing: options.createFolderIfMissing !== false,
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
		for (let k = 1; k < this.getInputData().length; k++) readPlan.call(this, k);
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
	let facts: Facts = mailIdOfItem(json) === mailId ? factsOfItem(json) : {};
	let mail: IDataObject | undefined = mailIdOfItem(json) === mailId ? json : undefined;
	let readDetail = false;
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
			(summaryOnly || (readDetail && wanted.includes('summary')))
		) {
			// The summary is on the scan, never on the mail item.
			readSummary = true;
			const summary = await apiRequest.call(
				this,
				'GET',
				`/v1/scans/${segment(facts.scan.id)}/summary`,
				{ itemIndex: i },
			);
			const points = Array.isArray(summary.summary)
				? summary.summary.map(String).filter((p) => p.trim() !== '')
				: [];
			facts = mergeFacts(facts, {
				summary: points.length > 0 ? points.join('\n') : null,
				label:
					typeof summary.label === 'string' && summary.label.trim() !== '' ? summary.label : null,
			});
		} else if (!readDetail) {
			readDetail = true;
			mail = await apiRequest.call(this, 'GET', `/v1/mails/${segment(mailId)}`, { itemIndex: i });
			// The item may be older than the answer: the answer wins for what it says.
			facts = mergeFacts(factsOfDetail(mail), facts);
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
			mail: mail ?? { id: mailId },
		};
	}
	const done = await act.call(this, mailId, action, plan, i, rule ? rule.position : 0);
	return {
		...output,
		decision: `${rule ? '' : 'No rule matched: '}${done.words}`,
		folder_id: done.folderId ?? null,
		folder_name: done.folderName ?? null,
		folder_created: done.created,
		marked_read: done.fails ? false : action.markRead,
		archived: done.fails ? false : action.archive,
		preview: plan.preview,
		mail: done.mail ?? mail ?? { id: mailId },
	};
}

/** The action's writes (none in preview): one update (folder and read state), then the archive. */
async function act(
	this: IExecuteFunctions,
	mailId: string,
	action: Action,
	plan: Plan,
	i: number,
	position: number,
) {
	const { folder } = action;
	const who = position === 0 ? 'Fallback Folder' : `Rule ${position}`;
	let folderId: string | undefined = folder.mode === 'name' ? undefined : folder.value;
	let folderName = folder.mode === 'name' ? folder.value : folder.cachedResultName;
	let created = false;
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
	} else if (plan.preview || folderViews.get(this)) {
		// A folder by ID: the preview checks it against the run's one folder list; a real run names it when the list is already read.
		const known = (await executionFolders.call(this, i)).find(
			(f) => f.id !== undefined && String(f.id) === folderId,
		);
		if (known) folderName = String(known.name ?? folderName ?? '') || folderName;
		else if (plan.preview) {
			return {
				words: `Would fail: ${who}'s folder ID ${folderId} does not exist`,
				folderId,
				folderName: null,
				created,
				mail: undefined,
				fails: true,
			};
		}
	}
	const also = [action.markRead ? 'marked read' : '', action.archive ? 'archived' : ''].filter(
		Boolean,
	);
	const creation = created
		? plan.preview
			? ' (folder would be created)'
			: ' (folder created)'
		: '';
	const words = `${plan.preview ? 'Would file' : 'Filed'} into "${folderName ?? folderId}"${creation}${also.length ? `, ${also.map((a) => (plan.preview ? `would be ${a}` : a)).join(', ')}` : ''}`;
	if (plan.preview) return { words, folderId, folderName, created, mail: undefined, fails: false };
	let mail: IDataObject | undefined;
	let failure: Error | undefined;
	try {
		mail = await apiRequest.call(this, 'PATCH', `/v1/mails/${segment(mailId)}`, {
			body: { folder_id: folderId, ...(action.markRead ? { is_read: true } : {}) },
			itemIndex: i,
		});
	} catch (error) {
		failure = error as Error;
	}
	if (failure) {
		// Which rule's filing failed, for a folder ID that no longer exists most of all.
		failure.message = `${who} (folder ${folder.mode === 'name' ? `"${folderName}"` : `ID ${folderId}`}): ${failure.message}`;
		throw failure;
	}
	if (action.archive)
		mail = await apiRequest.call(this, 'POST', `/v1/mails/${segment(mailId)}/archive`, {
			itemIndex: i,
		});
	return { words, folderId, folderName, created, mail, fails: false };
}
