// Runs the BUILT package through n8n's own execution code (n8n-core's loader, Workflow,
// WorkflowExecute, node contexts and real httpRequestWithAuthentication), as real n8n does.
// By default that is the n8n-core and n8n-workflow of this repository's devDependencies (n8n 2.x);
// with VMB_N8N_CORE=<folder of test/cores> it is that line's, installed and given a copy of the
// built package by test/setup/unit-setup.mjs.
import { createRequire } from 'node:module';
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { describeCoreLine } from '../setup/n8n-core-line.mjs';
import { ROOT_DIR } from '../setup/paths.mjs';
import { deduplicationHelpers, hashOf, processedDataTable } from '../support/processed-data.mjs';

process.env.N8N_USER_FOLDER ??= fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-harness-'));

/** The core line under test and the package folder it loads (a staged copy for another line). */
const line = process.env.VMB_N8N_CORE ? describeCoreLine(process.env.VMB_N8N_CORE) : undefined;
// VMB_PACKAGE_DIR: another build to test (a folder with package.json and dist/, inside the repository
// so that it finds node_modules), e.g. the code before a change for the model checker.
const PACKAGE_DIR = process.env.VMB_PACKAGE_DIR
	? path.resolve(process.env.VMB_PACKAGE_DIR)
	: line
		? line.packageDir
		: ROOT_DIR;
const require = createRequire(line ? path.join(line.dir, 'package.json') : import.meta.url);
const core = require('n8n-core');
const { Workflow, ICredentialsHelper, NodeHelpers } = require('n8n-workflow');
/** The n8n-core version the tests run on (package metadata). */
export const CORE_VERSION = require('n8n-core/package.json').version;
export const CORE_MAJOR = Number(CORE_VERSION.split('.')[0]);

export const PACKAGE = 'n8n-nodes-virtual-mailbox';
export const TYPES = {
	action: `${PACKAGE}.virtualMailbox`,
	trigger: `${PACKAGE}.virtualMailboxTrigger`,
	poll: `${PACKAGE}.virtualMailboxPollTrigger`,
};

let loaderPromise;
/** The package as n8n loads it: from the "n8n" block of package.json, out of dist/. */
export function loadPackage() {
	loaderPromise ??= (async () => {
		const loader = new core.PackageDirectoryLoader(PACKAGE_DIR);
		await loader.loadAll();
		return loader;
	})();
	return loaderPromise;
}

/** Require a built module of the package (the same instance n8n's loader uses). */
export function dist(relative) {
	return require(path.join(PACKAGE_DIR, 'dist', relative));
}

const INPUT_TYPE = 'harness.input';

function inputNodeType(items) {
	return {
		description: {
			displayName: 'Input',
			name: INPUT_TYPE,
			group: ['input'],
			version: 1,
			description: 'Emits the test items',
			defaults: { name: 'Input' },
			inputs: [],
			outputs: ['main'],
			properties: [],
		},
		async execute() {
			return [items.map((json) => ({ json }))];
		},
	};
}

function nodeTypesFor(loader, extra = {}) {
	const byName = (type) => {
		if (extra[type]) return extra[type];
		const short = type.startsWith(`${PACKAGE}.`) ? type.slice(PACKAGE.length + 1) : type;
		const entry = loader.nodeTypes[short];
		if (!entry) throw new Error(`Unknown node type ${type}`);
		return entry.type;
	};
	return {
		getByName: byName,
		getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(byName(type), version),
		getKnownTypes: () => ({}),
	};
}

class CredentialsHelper extends ICredentialsHelper {
	constructor(loader, credentials) {
		super();
		this.loader = loader;
		this.credentials = credentials;
		/** How often n8n loaded (in real n8n: queried and decrypted) a credential. */
		this.loads = 0;
	}
	getParentTypes() {
		return [];
	}
	isCredentialUsableByNode() {
		return true;
	}
	async authenticate(credentials, typeName, requestOptions, workflow, node) {
		const type = this.loader.credentialTypes[typeName].type;
		const auth = type.authenticate;
		// As n8n's CredentialsHelper: a function is called as is, with no expression.
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		if (!auth || auth.type !== 'generic') return requestOptions;
		// As n8n's CredentialsHelper: resolve each "={{ }}" against $credentials.
		const resolve = (value) =>
			typeof value === 'string' && value.startsWith('=')
				? workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					)
				: value;
		for (const [outer, inner] of Object.entries(auth.properties)) {
			requestOptions[outer] ??= {};
			for (const [key, value] of Object.entries(inner))
				requestOptions[outer][resolve(key)] = resolve(value);
		}
		return requestOptions;
	}
	async preAuthentication() {
		return undefined;
	}
	async runPreAuthentication() {
		return undefined;
	}
	async getCredentials() {
		throw new Error('not used');
	}
	async getDecrypted(_additionalData, _nodeCredentials, type) {
		if (!this.credentials[type]) throw new Error(`No test credentials of type ${type}`);
		this.loads++;
		return { ...this.credentials[type] };
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties(type) {
		return this.loader.credentialTypes[type].type.properties;
	}
}

function additionalDataFor(loader, credentials, workflowData) {
	return {
		credentialsHelper: new CredentialsHelper(loader, credentials),
		hooks: new core.ExecutionLifecycleHooks('manual', 'harness-execution', workflowData),
		executeWorkflow: async () => {
			throw new Error('not supported in the harness');
		},
		getRunExecutionData: async () => undefined,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		variables: {},
		userId: 'harness-user',
		executionId: 'harness-execution',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		setExecutionStatus: () => {},
		sendDataToUI: () => {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('no task runner in the harness');
		},
	};
}

export const DEFAULT_CREDENTIALS = {
	environment: 'custom',
	baseUrl: 'http://vmb.test',
	apiKey: 'test_sk_0123456789abcdef',
	webhookSecret: 'whsec_current_0123456789',
	previousWebhookSecret: '',
};

/** `node`: { id, name, credentialId } of the node under test, to rename, copy or re-credential it. */
function buildWorkflow(
	loader,
	{
		parameters,
		type = TYPES.action,
		typeVersion = 1,
		credentials,
		items,
		staticData,
		extraTypes = {},
		workflowId = `wf-${Math.random().toString(36).slice(2)}`,
		node: identity = {},
	},
) {
	const node = {
		id: identity.id ?? 'node-under-test',
		name: identity.name ?? 'Virtual Mailbox',
		type,
		typeVersion,
		position: [200, 0],
		parameters,
		credentials: {
			virtualMailboxApi: { id: identity.credentialId ?? '1', name: 'Virtual Mailbox account' },
		},
	};
	const nodes = [node];
	const connections = {};
	const extra = { ...extraTypes };
	if (items) {
		extra[INPUT_TYPE] = inputNodeType(items);
		nodes.unshift({
			id: 'input',
			name: 'Input',
			type: INPUT_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		});
		connections.Input = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	}
	const workflowData = {
		id: workflowId,
		name: 'harness',
		nodes,
		connections,
		active: false,
		settings: {},
		staticData,
	};
	const workflow = new Workflow({
		...workflowData,
		nodeTypes: nodeTypesFor(loader, extra),
		staticData,
	});
	const additionalData = additionalDataFor(
		loader,
		{ virtualMailboxApi: credentials },
		workflowData,
	);
	return { workflow, node: workflow.getNode(node.name), additionalData };
}

/**
 * Run the action node once over `items` (default: one empty item) through WorkflowExecute.
 * Returns { items, error } where items are the node's output items.
 */
export async function runNode({
	parameters,
	items = [{}],
	credentials = DEFAULT_CREDENTIALS,
	continueOnFail = false,
	type,
	typeVersion,
	extraTypes,
	pinData,
	staticData,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, {
		parameters,
		credentials,
		items,
		type,
		typeVersion,
		extraTypes,
		staticData,
	});
	if (continueOnFail) node.onError = 'continueRegularOutput';
	const execute = new core.WorkflowExecute(additionalData, 'manual');
	let run;
	try {
		// Without items the node under test is the start node (a trigger's manual run); `pinData`: { [node name]: items } as pinned in the editor.
		const startNode = workflow.getNode('Input') ?? node;
		// n8n-core 2.x takes one options object; 1.x takes (workflow, startNode, destinationNode, pinData).
		run =
			CORE_MAJOR >= 2
				? await execute.run({ workflow, startNode, pinData })
				: await execute.run(workflow, startNode, undefined, pinData);
	} catch (error) {
		// n8n's own pre-run checks (for example an empty required parameter) stop the run here.
		return { items: [], error, run: undefined };
	}
	const task = run.data.resultData.runData[node.name]?.[0];
	return {
		items: task?.data?.main?.[0] ?? [],
		error: task?.error ?? run.data.resultData.error,
		run,
		credentialLoads: additionalData.credentialsHelper.loads,
	};
}

/**
 * n8n's deduplication store (the `processed_data` table behind helpers.checkProcessedAndRecord and
 * its siblings): the tests' one model of it (test/support/processed-data.mjs) in real time, behind
 * n8n-core's own DataDeduplicationService. One row per workflow and context (`<workflow id>|` for
 * scope workflow, `<workflow id>|n:<node id>` for scope node), holding md5 hashes; each call reads,
 * then writes back what it computed (no lock): an insert fails if the row was inserted meanwhile
 * (the primary key), an update of a row deleted meanwhile changes nothing. `writeDelayMs` widens
 * the gap between a read and its write, as a busy database would, so that concurrent records can
 * overwrite each other as they can in n8n. `rows` reads and seeds rows as lists of hashes.
 */
const realTime = {
	wait: (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()),
	now: () => Date.now(),
};
const table = processedDataTable({ clock: realTime, roundTripMs: () => 0, writeMs: () => 0 });
export const processedData = {
	table,
	/** The rows as lists of hashes: get, set (a row saved in mode "entries"), has, delete, size. */
	rows: {
		get: (key) => table.data(key),
		set: (key, hashes) => table.put(key, { mode: 'entries', data: hashes }),
		has: (key) => table.rows.has(key),
		delete: (key) => table.rows.delete(key),
		get size() {
			return table.rows.size;
		},
	},
	writeDelayMs: 0,
	/** Records that fail before touching the store (as an insert that lost a race does in n8n). */
	failures: 0,
	/** ({ items, scope }) => true for a record that fails (a broken connection) before touching the store. */
	failWhen: undefined,
	reset() {
		table.rows.clear();
		this.writeDelayMs = 0;
		this.failures = 0;
		this.failWhen = undefined;
	},
	/** The stored list (md5 hashes) of values as this store keeps them. */
	hashesOf: (values) => values.map(hashOf),
};

/** The logger n8n's node contexts give nodes (this.logger), to watch what a node logs. */
export function nodeLogger() {
	const coreRequire = createRequire(require.resolve('n8n-core'));
	return coreRequire('@n8n/di').Container.get(coreRequire('@n8n/backend-common').Logger);
}
const contextOf = (scope, { node, workflow }) =>
	`${workflow.id}|${scope === 'node' ? `n:${node.id}` : ''}`;
/** The model's helpers for one call of n8n's deduplicator interface (which passes the workflow and node). */
const helpersFor = (contextData) =>
	deduplicationHelpers(table, {
		contextOf: (scope) => contextOf(scope, contextData),
		gap: () => realTime.wait(processedData.writeDelayMs),
	});
const deduplicator = {
	async checkProcessedAndRecord(items, scope, contextData, options) {
		if (processedData.failures > 0) {
			processedData.failures--;
			throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
		}
		if (processedData.failWhen?.({ items, scope }))
			throw new Error('Connection terminated unexpectedly');
		return await helpersFor(contextData).checkProcessedAndRecord(items, scope, options);
	},
	removeProcessed: async (items, scope, contextData) =>
		await helpersFor(contextData).removeProcessed(items, scope),
	clearAllProcessedItems: async (scope, contextData) =>
		await helpersFor(contextData).clearAllProcessedItems(scope),
	getProcessedDataCount: async (scope, contextData, options) =>
		await helpersFor(contextData).getProcessedDataCount(scope, options),
};
// One n8n-core per test worker, one harness module per test file: the service is made once and then
// pointed at this file's store (vitest evaluates this module again for each file in a worker).
const { DataDeduplicationService } = require('n8n-core/dist/data-deduplication-service');
if (DataDeduplicationService.instance)
	DataDeduplicationService.instance.deduplicator = deduplicator;
else DataDeduplicationService.init(deduplicator);

/** `mode`: 'webhook' for the Production URL, 'manual' for the Test URL ("Listen for test event"), as n8n runs them. */
function webhookContext(workflow, node, additionalData, mode = 'webhook') {
	const webhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: 'vmb',
		webhookDescription: { name: 'default', httpMethod: 'POST', path: 'vmb' },
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	return new core.WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
}

/**
 * A delivery as n8n handles it end to end: the webhook through WebhookContext, then, if it
 * returned items, the execution n8n starts with them (WorkflowExecute in `mode`, the trigger's
 * execute() first). `executionId` tells executions apart (n8n numbers them). Returns the webhook's
 * result and the items the trigger passed on (undefined when no execution started).
 */
export async function runDelivery({
	parameters,
	request,
	credentials = DEFAULT_CREDENTIALS,
	staticData = {},
	workflowId = 'wf-deliveries',
	executionId = '1',
	mode = 'webhook',
	typeVersion,
	node: nodeIdentity,
}) {
	const { result, response, workflow, node, additionalData } = await webhookCall({
		parameters,
		request,
		credentials,
		staticData,
		workflowId,
		typeVersion,
		mode,
		node: nodeIdentity,
	});
	if (!result.workflowData) return { result, response, items: undefined };
	additionalData.executionId = executionId;
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [{ node, data: { main: result.workflowData }, source: null }],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};
	const run = await new core.WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	const task = run.data.resultData.runData[node.name]?.[0];
	if (task?.error ?? run.data.resultData.error) throw task?.error ?? run.data.resultData.error;
	return { result, response, items: task?.data?.main?.[0] ?? [] };
}

/** A webhook delivery through n8n's own WebhookContext, as n8n's webhook server runs it. */
export async function runWebhook({
	parameters,
	request,
	credentials = DEFAULT_CREDENTIALS,
	staticData = {},
	workflowId,
	typeVersion,
	mode = 'webhook',
	node,
}) {
	const { result, response, workflow, additionalData } = await webhookCall({
		parameters,
		request,
		credentials,
		staticData,
		workflowId,
		typeVersion,
		mode,
		node,
	});
	return {
		result,
		response,
		staticData: workflow.staticData,
		credentialLoads: additionalData.credentialsHelper.loads,
	};
}

async function webhookCall({
	parameters,
	request,
	credentials,
	staticData,
	workflowId,
	typeVersion,
	mode,
	node: nodeIdentity,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, {
		parameters,
		type: TYPES.trigger,
		typeVersion,
		credentials,
		staticData,
		workflowId,
		node: nodeIdentity,
	});
	const response = new FakeResponse();
	const context = webhookContext(
		workflow,
		node,
		additionalData,
		mode === 'manual' ? 'manual' : 'webhook',
	);
	context.getRequestObject = () => request;
	context.getResponseObject = () => response;
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const result = await nodeType.webhook.call(context);
	return { result, response, workflow, node, additionalData };
}

/** Lifecycle methods (checkExists, create, delete) through n8n's HookContext. */
export async function runHook({
	parameters,
	method,
	credentials = DEFAULT_CREDENTIALS,
	staticData = {},
	workflowId,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, {
		parameters,
		type: TYPES.trigger,
		credentials,
		staticData,
		workflowId,
	});
	const webhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: 'vmb',
		webhookDescription: { name: 'default', httpMethod: 'POST', path: 'vmb' },
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	const context = new core.HookContext(
		workflow,
		node,
		additionalData,
		'trigger',
		'activate',
		webhookData,
	);
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return await nodeType.webhookMethods.default[method].call(context);
}

/**
 * A resource locator's "From List" search, as the editor asks for it: the node's listSearch
 * method called with n8n's LoadOptionsContext (real credentials and request helpers).
 */
export async function runListSearch({
	method,
	filter,
	paginationToken,
	parameters = {},
	credentials = DEFAULT_CREDENTIALS,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, { parameters, credentials });
	const context = new core.LoadOptionsContext(workflow, node, additionalData, '');
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return await nodeType.methods.listSearch[method].call(context, filter, paginationToken);
}

/** One poll through n8n's PollContext. Static data is the workflow's, kept by the caller across polls. */
export async function runPoll({
	parameters,
	credentials = DEFAULT_CREDENTIALS,
	staticData = {},
	mode = 'trigger',
	workflowId,
	node: nodeIdentity,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, {
		parameters,
		type: TYPES.poll,
		credentials,
		staticData,
		...(workflowId ? { workflowId } : {}),
		node: nodeIdentity,
	});
	const context = new core.PollContext(workflow, node, additionalData, mode, 'activate');
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const result = await nodeType.poll.call(context);
	return { result, staticData: workflow.staticData };
}

/**
 * The items an execution n8n starts with `data` (a delivery's or an emit's) passes on from the
 * trigger node: WorkflowExecute in `mode` over a stack holding the trigger with that data, as
 * n8n's WorkflowRunner does (the trigger's execute() runs first).
 */
async function runStartedExecution(workflow, node, additionalData, mode, data) {
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [{ node, data: { main: data }, source: null }],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	};
	const run = await new core.WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	const task = run.data.resultData.runData[node.name]?.[0];
	if (task?.error ?? run.data.resultData.error) throw task?.error ?? run.data.resultData.error;
	return task?.data?.main?.[0] ?? [];
}

/**
 * A trigger node's trigger() as n8n's ActiveWorkflowManager runs it at activation (TriggerContext
 * in `mode`, `activation`), the static data the caller's (n8n saves it after activation and on
 * each emit). Each emit starts an execution as n8n does (runStartedExecution, mode "trigger");
 * `executions` holds, per emit, the items the trigger passed on. Returns after trigger() did;
 * `close()` is n8n's deactivation; `settled()` waits for the executions started so far.
 */
export async function startTrigger({
	parameters,
	credentials = DEFAULT_CREDENTIALS,
	staticData = {},
	workflowId = 'wf-deliveries',
	typeVersion = 2,
	mode = 'trigger',
	activation = 'init',
	node: nodeIdentity,
}) {
	const loader = await loadPackage();
	const { workflow, node, additionalData } = buildWorkflow(loader, {
		parameters,
		type: TYPES.trigger,
		typeVersion,
		credentials,
		staticData,
		workflowId,
		node: nodeIdentity,
	});
	const emitted = [];
	const executions = [];
	const failures = [];
	const started = [];
	const emit = (data) => {
		emitted.push(data[0].map((item) => item.json));
		const execution = runStartedExecution(workflow, node, additionalData, 'trigger', data).then(
			(items) => executions.push(items.map((item) => item.json)),
		);
		started.push(execution);
	};
	const context = new core.TriggerContext(
		workflow,
		node,
		additionalData,
		mode,
		activation,
		emit,
		(error) => failures.push(error),
		(error) => failures.push(error),
	);
	// n8n's cron (helpers.registerCron) stands still here: a test ticks it (tick()); n8n removes a
	// trigger's crons when it deactivates the workflow, as close() does.
	const crons = [];
	context.helpers.registerCron = (cron, onTick) => {
		crons.push({ expression: cron.expression, onTick });
		return true;
	};
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const response = (await nodeType.trigger.call(context)) ?? {};
	// n8n 2.x holds the workflow's expression isolate only while it activates (its
	// WorkflowTriggerActivator acquires it around trigger() and releases it after): what a trigger
	// renders later, on a timer, fails as there. Expressions in parameters (getParameterValue) are
	// left alone: the executions the emits start share this workflow here.
	if (CORE_MAJOR >= 2)
		workflow.expression.getSimpleParameterValue = () => {
			throw new Error('No bridge acquired for this context. Call acquire() first.');
		};
	return {
		response,
		emitted,
		executions,
		failures,
		crons,
		tick: () => crons.forEach((cron) => cron.onTick()),
		staticData: workflow.staticData,
		close: async () => {
			crons.length = 0;
			await response.closeFunction?.();
		},
		settled: async () => await Promise.all(started),
	};
}

export class FakeResponse {
	constructor() {
		this.statusCode = 200;
		this.body = undefined;
		this.ended = false;
		this.headers = {};
	}
	status(code) {
		this.statusCode = code;
		return this;
	}
	setHeader(name, value) {
		this.headers[name.toLowerCase()] = value;
		return this;
	}
	send(body) {
		this.body = body;
		return this;
	}
	json(body) {
		this.body = body;
		return this;
	}
	end() {
		this.ended = true;
		return this;
	}
}
