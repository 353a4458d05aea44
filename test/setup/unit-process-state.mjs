// Runs before every unit test file. A unit worker process runs many files one after another (n8n-core
// and the built package are loaded once per process, as in n8n), so each file starts as a fresh n8n
// process would: the package's process state forgotten, its policies as shipped, nock as imported.
import { beforeAll, vi } from 'vitest';
import nock from 'nock';
import { dist } from '../harness/n8n-core-harness.mjs';

const state = (name) => dist(`nodes/shared/state/${name}.js`)[name];
const FORGET = ['recentDeliveries', 'pollsInFlight', 'keptCredentials', 'claimQueues'].map(state);
const POLICIES = [
	state('retryPolicy'),
	dist('nodes/VirtualMailboxTrigger/claims.js').claimPolicy,
	dist('nodes/VirtualMailboxTrigger/catchUp.js').catchUpPolicy,
];
// The values before any test changed them: taken by the first file of the process.
globalThis.vmbShippedPolicies ??= POLICIES.map((policy) => ({ ...policy }));

beforeAll(() => {
	for (const kind of FORGET) kind.clear();
	POLICIES.forEach((policy, i) => Object.assign(policy, globalThis.vmbShippedPolicies[i]));
	nock.cleanAll();
	nock.enableNetConnect();
	if (!nock.isActive()) nock.activate();
	vi.useRealTimers();
});
