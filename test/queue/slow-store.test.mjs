// The webhook trigger's claim (nodes/VirtualMailboxTrigger/claims.ts) when n8n's database is slow:
// after n8n's migrations, a Postgres trigger on n8n's processed-data table (the deduplication store
// the claim writes to) sleeps in every insert and update, so each write to the store takes that
// long. Copies of each delivery reach every webhook process at the same moment, with unrelated
// deliveries in between; each delivery must run the workflow once: none lost, none doubled.
//
// Which configurations run: VMB_SLOW_STORE, a comma-separated list of <write ms>x<workers>, or
// "all" for the eight docs/scaling.md quotes (0, 200, 400, 1000 ms with 2 and 3 workers); by default
// 400x3 and 1000x3, which CI runs. The project's shared cluster (cluster.mjs) runs with each worker
// count in turn. Each configuration prints a "[queue] …" line.
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../simulator/server.mjs';
import { restClient, waitFor } from '../e2e/real-n8n.mjs';
import { credentialFor, triggerWorkflow } from '../e2e/workflows.mjs';
import { describeRuntime } from '../setup/n8n-runtime.mjs';
import { payloads, sign } from '../support/webhooks.mjs';
import { sharedCluster, WORKERS } from './cluster.mjs';

const ALL = ['0x2', '200x2', '400x2', '1000x2', '0x3', '200x3', '400x3', '1000x3'];
const asked = (process.env.VMB_SLOW_STORE ?? '400x3,1000x3').trim();
const cells = (asked === 'all' ? ALL : asked.split(',')).map((cell) => {
	const match = /^(\d+)x(\d+)$/.exec(cell.trim());
	if (!match)
		throw new Error(`VMB_SLOW_STORE: "${cell}" is not <write ms>x<workers> (e.g. 400x3) or "all"`);
	return { writeMs: Number(match[1]), workers: Number(match[2]) };
});
const ROUNDS = 3;
const BURST = 10; // distinct deliveries per round, each copied to every webhook process at once
const UNRELATED = 3; // deliveries per round sent to one process only, in between the copies
const TRIGGER = 'VmbSlowStoreTrigger1';
const report = (line) => process.stdout.write(`[queue] ${line}\n`);
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

const trigger = triggerWorkflow({ id: TRIGGER, name: 'Slow store: trigger → Ran' });
// A node after the trigger: it runs only for items the trigger passes on.
trigger.workflow.nodes.push({
	id: 'b3c4d5e6-0000-4000-8000-000000000026',
	name: 'Ran',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [300, 0],
	parameters: {},
});
trigger.workflow.connections['Virtual Mailbox Trigger'] = {
	main: [[{ node: 'Ran', type: 'main', index: 0 }]],
};

/** A query against the cluster's Postgres, with n8n's own `pg`. */
async function withPostgres(postgres, use) {
	const { Client } = createRequire(
		path.join(describeRuntime().dir, 'node_modules', 'n8n', 'package.json'),
	)('pg');
	const client = new Client({
		host: '127.0.0.1',
		port: postgres.port,
		user: 'postgres',
		database: 'postgres',
	});
	await client.connect();
	try {
		return await use(client);
	} finally {
		await client.end();
	}
}

/** Make every write to n8n's processed_data table take `ms` longer (0: as fast as Postgres is). */
async function slowStoreWrites(postgres, ms) {
	await withPostgres(postgres, async (client) => {
		await client.query(
			`CREATE OR REPLACE FUNCTION vmb_slow_store() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(${ms / 1000}); RETURN NEW; END $$`,
		);
		await client.query('DROP TRIGGER IF EXISTS vmb_slow_store ON processed_data');
		if (ms > 0)
			await client.query(
				'CREATE TRIGGER vmb_slow_store BEFORE INSERT OR UPDATE ON processed_data FOR EACH ROW EXECUTE FUNCTION vmb_slow_store()',
			);
	});
}

/** The workflow's rows in n8n's deduplication store: context '' is the claim's lock, `n:<node id>` the trigger's keys. */
async function storeRows(postgres) {
	return await withPostgres(
		postgres,
		async (client) =>
			(
				await client.query('SELECT context, value FROM processed_data WHERE "workflowId" = $1', [
					TRIGGER,
				])
			).rows,
	);
}

let sim;
let serial = 0;
beforeAll(async () => {
	sim = await startSimulator({ count: 20, seed: 26 });
});
afterAll(async () => {
	await sim?.close();
});

for (const workers of [...new Set(cells.map((c) => c.workers))]) {
	describe(`slow deduplication store, ${workers} workers and 2 webhook processes`, () => {
		let cluster;
		let rest;
		let clusterFirstSerial;
		const data = () => ({
			credentials: [credentialFor(sim)],
			workflows: [trigger.workflow],
			waitForWebhooks: [trigger.path],
		});
		beforeAll(async () => {
			clusterFirstSerial = serial;
			cluster = await sharedCluster();
			await cluster.setWorkers(workers);
			// The trigger's list of keys starts empty for each worker count, as on a cluster of its own.
			await withPostgres(cluster.postgres, (client) =>
				client.query('DELETE FROM processed_data WHERE "workflowId" = $1', [TRIGGER]),
			);
			await cluster.load(data());
			rest = await restClient(cluster.main.base);
		}, 900_000);
		afterAll(async () => {
			if (!cluster) return;
			await slowStoreWrites(cluster.postgres, 0);
			await cluster.unload(data());
			await cluster.setWorkers(WORKERS);
		}, 120_000);

		/** Every execution of the trigger's workflow (newest first, 100 a page, with a cursor). */
		async function executions() {
			const all = [];
			let cursor;
			for (;;) {
				const query = `filter=${encodeURIComponent(JSON.stringify({ workflowId: TRIGGER }))}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
				const page = (await rest.call('GET', `/rest/executions?${query}`)).data;
				all.push(...page.results);
				// A page can list an execution a previous page listed (one that was running then): once each.
				if (!page.nextCursor) return [...new Map(all.map((e) => [e.id, e])).values()];
				cursor = page.nextCursor;
			}
		}

		for (const { writeMs } of cells.filter((c) => c.workers === workers)) {
			test(`store writes slowed by ${writeMs} ms, ${workers} workers: copies sent to both webhook processes at the same moment, with unrelated deliveries in between, each run once`, async () => {
				await slowStoreWrites(cluster.postgres, writeMs);
				const before = new Set((await executions()).map((e) => e.id));
				const sent = [];
				const deliver = (index, delivery) =>
					fetch(`${cluster.webhookBases[index]}/webhook/${trigger.path}`, {
						method: 'POST',
						headers: delivery.headers,
						body: delivery.raw,
					}).then((r) => r.status);
				const newMail = () => {
					const id = 800_000 + ++serial;
					sent.push(id);
					return sign({ ...payloads['new-mail'], id }, { secret: sim.webhookSecret });
				};
				for (let round = 0; round < ROUNDS; round++) {
					const requests = [];
					for (let i = 0; i < BURST; i++) {
						const delivery = newMail();
						requests.push(...cluster.webhookBases.map((_, index) => deliver(index, delivery)));
						if (i % Math.ceil(BURST / UNRELATED) === 1)
							requests.push(deliver(i % cluster.webhookBases.length, newMail()));
					}
					expect(await Promise.all(requests)).toEqual(requests.map(() => 200));
				}
				const started = sent.length + ROUNDS * BURST * (cluster.webhookBases.length - 1);
				let finished = [];
				await waitFor(
					async () => {
						finished = (await executions()).filter((e) => !before.has(e.id));
						return finished.length >= started && finished.every((e) => FINISHED.has(e.status));
					},
					Math.max(300_000, started * writeMs * 20),
					() => false,
					`${started} executions finished`,
				);
				// Per delivered mail id: how many executions ran the node after the trigger.
				const ran = new Map(sent.map((id) => [id, 0]));
				const durations = [];
				const claimTimes = []; // the trigger node's own time in each execution: its claim
				for (const e of finished) {
					const data = (await rest.execution(e.id)).data.resultData.runData;
					durations.push(new Date(e.stoppedAt) - new Date(e.startedAt));
					claimTimes.push(data['Virtual Mailbox Trigger']?.[0]?.executionTime ?? 0);
					const json = data.Ran?.[0]?.data?.main?.[0]?.[0]?.json;
					if (!json) continue;
					const id = Number(json.id ?? json.body?.id);
					ran.set(id, (ran.get(id) ?? 0) + 1);
				}
				const counts = [...ran.values()];
				const lost = counts.filter((n) => n === 0).length;
				const duplicated = counts.reduce((sum, n) => sum + Math.max(0, n - 1), 0);
				const mean = (list) => Math.round(list.reduce((a, b) => a + b, 0) / list.length);
				// The cost for one delivery alone (no other claim in flight): its execution's claim time.
				const lone = sign(
					{ ...payloads['new-mail'], id: 800_000 + ++serial },
					{ secret: sim.webhookSecret },
				);
				expect(await deliver(0, lone)).toBe(200);
				let loneExecution;
				await waitFor(async () => {
					loneExecution = (await executions()).find(
						(e) => !before.has(e.id) && !finished.some((f) => f.id === e.id),
					);
					return loneExecution && FINISHED.has(loneExecution.status);
				}, 120_000);
				const loneData = (await rest.execution(loneExecution.id)).data.resultData.runData;
				const loneClaim = loneData['Virtual Mailbox Trigger']?.[0]?.executionTime;
				expect(loneData.Ran).toBeDefined();
				report(
					`slow store ${writeMs} ms, ${workers} workers: ${sent.length} deliveries (${ROUNDS} rounds of ${BURST} copied to ${cluster.webhookBases.length} webhook processes + ${UNRELATED} unrelated), ${finished.length} executions: lost ${lost}, duplicated ${duplicated} (goal 0 / 0); execution time mean ${mean(durations)} ms, max ${Math.max(...durations)} ms; of which the trigger's claim mean ${mean(claimTimes)} ms, max ${Math.max(...claimTimes)} ms; a delivery alone afterwards: claim ${loneClaim} ms`,
				);
				expect(finished.every((e) => e.status === 'success')).toBe(true);
				expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
				// Every turn gave the lock back (no row for the workflow), and the trigger's list holds one
				// key for each delivery this cluster was sent: none erased by an overlapping write.
				const rows = await storeRows(cluster.postgres);
				expect(rows.map((r) => r.context)).toEqual([`n:${trigger.workflow.nodes[0].id}`]);
				expect(JSON.parse(rows[0].value).data.length).toBe(serial - clusterFirstSerial);
			}, 1_800_000);
		}
	});
}
