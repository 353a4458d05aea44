// Runs before every unit test file is imported. A unit worker process runs many files one after
// another (n8n-core and the built package load once per process, as in n8n), so each file starts as
// a fresh n8n process would: the package's process state forgotten, its policies as shipped, nock
// as imported (a file may take it out of the way as it loads: test/harness/simulator.mjs).
import { vi } from 'vitest';
import nock from 'nock';
import { dist } from '../harness/n8n-core-harness.mjs';

const state = (name) => dist(`nodes/shared/state/${name}.js`)[name];
const POLICIES = [
	state('retryPolicy'),
	dist('nodes/VirtualMailboxTrigger/claims.js').claimPolicy,
	dist('nodes/VirtualMailboxTrigger/catchUp.js').catchUpPolicy,
];
// The values before any test changed them: taken by the first file of the process.
globalThis.vmbShippedPolicies ??= POLICIES.map((policy) => ({ ...policy }));

for (const name of ['recentDeliveries', 'pollsInFlight', 'keptCredentials', 'claimQueues'])
	state(name).clear();
POLICIES.forEach((policy, i) => Object.assign(policy, globalThis.vmbShippedPolicies[i]));
nock.cleanAll();
nock.enableNetConnect();
if (!nock.isActive()) nock.activate();
vi.useRealTimers();
