// Workflows imported into real n8n by the end-to-end tests and `npm run dev`.
import crypto from 'node:crypto';

export const CREDENTIAL_ID = 'VmbSimulatorCred';
export const credentialFor = (sim) => ({
	id: CREDENTIAL_ID,
	name: 'Virtual Mailbox (local simulator)',
	type: 'virtualMailboxApi',
	data: {
		environment: 'custom',
		baseUrl: sim.url,
		apiKey: sim.apiKey,
		webhookSecret: sim.webhookSecret,
		previousWebhookSecret: '',
	},
});
const credentials = {
	virtualMailboxApi: { id: CREDENTIAL_ID, name: 'Virtual Mailbox (local simulator)' },
};
/** The poll workflows read only; their own read-only key tells their requests apart in the simulator's log. */
export const READ_ONLY_CREDENTIAL_ID = 'VmbSimulatorRead';
export const readOnlyCredentialFor = (sim) => ({
	...credentialFor(sim),
	id: READ_ONLY_CREDENTIAL_ID,
	name: 'Virtual Mailbox (simulator, read-only)',
	data: { ...credentialFor(sim).data, apiKey: sim.readOnlyKey },
});
const readOnly = {
	virtualMailboxApi: {
		id: READ_ONLY_CREDENTIAL_ID,
		name: 'Virtual Mailbox (simulator, read-only)',
	},
};
const uuid = (name) => {
	const h = crypto.createHash('sha256').update(name).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const body = (field) => `={{ $json.body.${field} }}`;
const rl = (field) => ({ __rl: true, mode: 'id', value: body(field) });

/** One webhook path per operation of the action node; parameters read ids from the request body. */
export const OPERATIONS = {
	'mail-getAll': {
		resource: 'mail',
		operation: 'getAll',
		returnAll: false,
		limit: 30,
		filters: { status: ['inbox', 'archived'], mailType: ['letter', 'package'], sort: 'oldest' },
	},
	'mail-getAll-all': { resource: 'mail', operation: 'getAll', returnAll: true, filters: {} },
	'mail-get': { resource: 'mail', operation: 'get', mailId: body('mailId') },
	'mail-undiscard': { resource: 'mail', operation: 'undiscard', mailId: body('mailId') },
	'scan-get': { resource: 'scan', operation: 'get', scanId: body('scanId') },
	'scan-cancel': { resource: 'scan', operation: 'cancel', scanId: body('scanId') },
	'scan-getSummary': { resource: 'scan', operation: 'getSummary', scanId: body('scanId') },
	'scan-complete': {
		resource: 'scan',
		operation: 'complete',
		scanId: body('scanId'),
		additionalFields: { label: 'Electric bill', summary: ['Amount due $84.20', 'Due 12 Dec'] },
	},
	'shipment-get': { resource: 'shipment', operation: 'get', shipmentId: body('shipmentId') },
	'folder-create': {
		resource: 'folder',
		operation: 'create',
		name: body('name'),
		additionalFields: { color: '#188038' },
	},
	'folder-update': {
		resource: 'folder',
		operation: 'update',
		folderId: rl('folderId'),
		updateFields: { name: body('name') },
	},
	'folder-delete': { resource: 'folder', operation: 'delete', folderId: rl('folderId') },
	'folder-getAll': { resource: 'folder', operation: 'getAll', returnAll: true },
	'address-create': {
		resource: 'address',
		operation: 'create',
		type: 'shipping',
		name: 'Ada Lovelace',
		line1: '12 Analytical Way',
		city: 'London',
		state: 'LDN',
		postalCode: 'NW1 6XE',
		country: 'GB',
		phoneNumber: '+442071234567',
		additionalFields: { line2: 'Flat 2' },
	},
	'address-getDefault': { resource: 'address', operation: 'getDefault', type: 'deposit' },
	'bankAccount-create': {
		resource: 'bankAccount',
		operation: 'create',
		bankName: 'First Bank',
		bankState: 'NY',
		accountNumber: body('accountNumber'),
	},
	'bankAccount-update': {
		resource: 'bankAccount',
		operation: 'update',
		bankAccountId: rl('bankAccountId'),
		updateFields: { bankName: 'First Bank of NY' },
	},
	'bankAccount-getAll': { resource: 'bankAccount', operation: 'getAll', returnAll: true },
	'account-get': { resource: 'account', operation: 'get' },
	'account-getMailingAddress': { resource: 'account', operation: 'getMailingAddress' },
};

export function operationsWorkflow() {
	const nodes = [];
	const connections = {};
	Object.entries(OPERATIONS).forEach(([name, parameters], index) => {
		const hook = `Hook ${name}`;
		const action = `VM ${name}`;
		nodes.push({
			id: uuid(hook),
			name: hook,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, index * 160],
			webhookId: uuid(`id ${hook}`),
			parameters: {
				httpMethod: 'POST',
				path: `op/${name}`,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		});
		nodes.push({
			id: uuid(action),
			name: action,
			type: 'n8n-nodes-virtual-mailbox.virtualMailbox',
			typeVersion: 1,
			position: [300, index * 160],
			parameters,
			credentials,
		});
		connections[hook] = { main: [[{ node: action, type: 'main', index: 0 }]] };
	});
	return {
		id: 'VmbOperationsWf1',
		name: 'E2E: every operation',
		active: true,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export function triggerWorkflow({
	id,
	name,
	options = {},
	events = ['new-mail', 'scan-update', 'open-update', 'shipment-update'],
	typeVersion = 1.1,
}) {
	const webhookId = uuid(`trigger ${id}`);
	return {
		workflow: {
			id,
			name,
			active: true,
			nodes: [
				{
					id: uuid(`node ${id}`),
					name: 'Virtual Mailbox Trigger',
					type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
					typeVersion,
					position: [0, 0],
					webhookId,
					parameters: { events, options },
					credentials,
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			pinData: {},
		},
		path: `${webhookId}/webhook`,
	};
}

// n8n refuses polling intervals under a minute.
const POLL_EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

/** Poll trigger (new mail) alone, and poll trigger (scan completed) → Download of the scan file. */
export function pollWorkflows() {
	const newMail = {
		id: 'VmbPollNewMail01',
		name: 'E2E: poll new mail',
		active: true,
		nodes: [
			{
				id: uuid('poll new mail'),
				name: 'Poll new mail',
				type: 'n8n-nodes-virtual-mailbox.virtualMailboxPollTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: POLL_EVERY_MINUTE,
					event: 'new-mail',
					filters: { mailType: ['package'] },
					options: {},
				},
				credentials: readOnly,
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
	const scans = {
		id: 'VmbPollScans0001',
		name: 'E2E: scan completed → download file',
		active: true,
		nodes: [
			{
				id: uuid('poll scans'),
				name: 'Scan completed',
				type: 'n8n-nodes-virtual-mailbox.virtualMailboxPollTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: POLL_EVERY_MINUTE, event: 'scan-completed', options: {} },
				credentials: readOnly,
			},
			{
				id: uuid('download scan'),
				name: 'Download scan',
				type: 'n8n-nodes-virtual-mailbox.virtualMailbox',
				typeVersion: 1,
				position: [300, 0],
				parameters: {
					resource: 'scan',
					operation: 'download',
					scanId: '={{ $json.id }}',
					binaryPropertyName: 'data',
				},
				credentials: readOnly,
			},
		],
		connections: {
			'Scan completed': { main: [[{ node: 'Download scan', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
	return [newMail, scans];
}
