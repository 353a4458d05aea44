// The Poll Trigger where its state meets what a user does around it: the credential swapped to
// another account, parameters edited, deactivate and reactivate, the node renamed or copied, a
// manual run, a poll started while the last one still downloads. docs/seams.md cites these tests.
import { afterEach, describe, expect, test } from 'vitest';
import http from 'node:http';
import { startSimulator } from '../../simulator/server.mjs';
import { TYPES, dist, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const { pollsInFlight } = dist('nodes/shared/state/pollsInFlight.js');
const POLICY = { ...retryPolicy };

// One account, and another on another server.
const sandboxAccount = await simulatorForFile({ count: 12, seed: 7 });
const { sim: sandbox, credentials: sandboxCredentials } = sandboxAccount;
const { sim: production, credentials: productionCredentials } = await simulatorForFile({
	count: 12,
	seed: 8,
});
afterEach(() => {
	Object.assign(retryPolicy, POLICY);
	pollsInFlight.clear();
});

const control = (sim, path, body) =>
	fetch(`${sim.url}/_control${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) }).then(
		(r) => r.json(),
	);
const newMail = { event: 'new-mail', filters: {}, options: {} };
const scanCompleted = { event: 'scan-completed', options: {} };
/** A poll of the sandbox account's trigger unless `options` say otherwise (credentials, workflowId…). */
const poll = (parameters, saved, { workflowId = 'wf-poll-seams', ...options } = {}) =>
	sandboxAccount.poll(parameters, saved, { workflowId, ...options });
const ids = (run) => run.items.map((i) => i.json.id);

describe('the credential swapped to another account, or edited', () => {
	test('swapping the credential to another account primes: none of its existing mail is emitted, then only its new mail', async () => {
		const { saved } = await poll(newMail);
		// the other account's mail, newer than anything the first account's state has seen
		for (let n = 0; n < 3; n++)
			await control(production, '/mail', { sender_name: `Existing production mail ${n}` });
		const swapped = await poll(newMail, saved, {
			credentials: productionCredentials,
			node: { credentialId: '2' },
		});
		expect(swapped.items).toEqual([]);
		const fresh = (await control(production, '/mail', { sender_name: 'Production mail' })).mail.id;
		expect(
			ids(
				await poll(newMail, swapped.saved, {
					credentials: productionCredentials,
					node: { credentialId: '2' },
				}),
			),
		).toEqual([fresh]);
	});

	test("editing the credential's server (Environment or Base URL) primes, though the credential is the same one", async () => {
		const { saved } = await poll(newMail);
		await control(production, '/mail', { sender_name: 'Existing production mail' });
		const edited = await poll(newMail, saved, { credentials: productionCredentials });
		expect(edited.items).toEqual([]);
	});

	test('a new API key for the same account (a rotation) goes on from the state: mail that arrived meanwhile is emitted once; the state never holds a key', async () => {
		const { saved } = await poll(newMail);
		expect(JSON.stringify(saved)).not.toContain(sandbox.apiKey);
		const rotated = { ...sandboxCredentials, apiKey: sandbox.readOnlyKey };
		const meanwhile = (
			await control(sandbox, '/mail', { sender_name: 'Arrived around the rotation' })
		).mail.id;
		const next = await poll(newMail, saved, { credentials: rotated });
		expect(ids(next)).toEqual([meanwhile]);
		expect(JSON.stringify(next.saved)).not.toContain(sandbox.readOnlyKey);
		expect((await poll(newMail, next.saved, { credentials: rotated })).items).toEqual([]);
	});

	test('the account is asked (GET /v1/account) once when the key changed, and never while the credential stays the same', async () => {
		const { saved } = await poll(newMail);
		sandbox.requests.length = 0;
		const same = await poll(newMail, saved);
		expect(sandbox.requests.filter((r) => r.path === '/v1/account')).toHaveLength(0);
		const rotated = { ...sandboxCredentials, apiKey: sandbox.readOnlyKey };
		const next = await poll(newMail, same.saved, { credentials: rotated });
		expect(sandbox.requests.filter((r) => r.path === '/v1/account')).toHaveLength(1);
		await poll(newMail, next.saved, { credentials: rotated });
		expect(sandbox.requests.filter((r) => r.path === '/v1/account')).toHaveLength(1);
		// the state keeps a digest of the account id, never the id itself
		const { id } = await fetch(`${sandbox.url}/v1/account`, {
			headers: { authorization: `Bearer ${sandbox.apiKey}` },
		}).then((r) => r.json());
		expect(JSON.stringify(next.saved)).not.toContain(id);
	});

	test('swapping to another credential of the same account on the same server goes on from the state: mail that arrived meanwhile is emitted once', async () => {
		const { saved } = await poll(newMail);
		const meanwhile = (await control(sandbox, '/mail', { sender_name: 'Arrived around the swap' }))
			.mail.id;
		const swapped = await poll(newMail, saved, {
			credentials: { ...sandboxCredentials, apiKey: sandbox.readOnlyKey },
			node: { credentialId: '7' },
		});
		expect(ids(swapped)).toEqual([meanwhile]);
	});

	test('two simulators started from the same seed are two accounts: GET /v1/account names a different id for each', async () => {
		const twin = await startSimulator({
			count: 12,
			seed: 7,
			apiKey: 'test_sk_twin_account_on_the_proxy',
		});
		try {
			const headers = (key) => ({ authorization: `Bearer ${key}` });
			const [mine, theirs] = await Promise.all([
				fetch(`${sandbox.url}/v1/account`, { headers: headers(sandbox.apiKey) }).then((r) =>
					r.json(),
				),
				fetch(`${twin.url}/v1/account`, { headers: headers(twin.apiKey) }).then((r) => r.json()),
			]);
			expect(mine.id).not.toBe(theirs.id);
		} finally {
			await twin.close();
		}
	});

	test("another account's API key on the same server (a proxy in front of two accounts) primes: none of its mail is emitted", async () => {
		const other = await startSimulator({
			count: 12,
			seed: 9,
			apiKey: 'test_sk_another_account_on_the_proxy',
		});
		// One server, two accounts: the proxy sends each request to the account its key belongs to.
		const proxy = http.createServer((req, res) => {
			const target = new URL(
				req.url,
				(req.headers.authorization ?? '').endsWith(other.apiKey) ? other.url : sandbox.url,
			);
			const forward = http.request(
				target,
				{ method: req.method, headers: { ...req.headers, host: target.host } },
				(answer) => {
					res.writeHead(answer.statusCode, answer.headers);
					answer.pipe(res);
				},
			);
			req.pipe(forward);
		});
		await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
		const server = `http://127.0.0.1:${proxy.address().port}`;
		try {
			const { saved } = await poll(
				newMail,
				{},
				{ credentials: { ...sandboxCredentials, baseUrl: server } },
			);
			for (let n = 0; n < 3; n++)
				await control(other, '/mail', { sender_name: `The other account ${n}` });
			const switched = await poll(newMail, saved, {
				credentials: { ...sandboxCredentials, baseUrl: server, apiKey: other.apiKey },
			});
			expect(switched.items).toEqual([]);
			const fresh = (await control(other, '/mail', { sender_name: 'The other account, later' }))
				.mail.id;
			expect(
				ids(
					await poll(newMail, switched.saved, {
						credentials: { ...sandboxCredentials, baseUrl: server, apiKey: other.apiKey },
					}),
				),
			).toEqual([fresh]);
		} finally {
			proxy.closeAllConnections?.();
			await new Promise((resolve) => proxy.close(resolve));
			await other.close();
		}
	});

	test('the same credential read again (no edit) does not prime: mail that arrived meanwhile is emitted', async () => {
		const { saved } = await poll(newMail);
		const fresh = (await control(sandbox, '/mail', { sender_name: 'Same account' })).mail.id;
		expect(ids(await poll(newMail, saved, { credentials: { ...sandboxCredentials } }))).toEqual([
			fresh,
		]);
	});

	test("a poll with another account's credential that starts while a poll with the old one runs returns nothing and leaves the state alone; the next poll primes", async () => {
		const { saved } = await poll(newMail);
		for (let n = 0; n < 2; n++)
			await control(production, '/mail', { sender_name: `Existing production mail ${n}` });
		sandbox.settings.latencyMs = 200;
		const running = poll(newMail, saved);
		await new Promise((resolve) => setTimeout(resolve, 50));
		const swapped = await poll(newMail, saved, {
			credentials: productionCredentials,
			node: { credentialId: '2' },
		});
		sandbox.settings.latencyMs = 0;
		expect(swapped.items).toEqual([]);
		expect(swapped.saved).toEqual(saved);
		expect(production.requests.filter((r) => !r.path.startsWith('/_control'))).toEqual([]);
		await running;
		const primed = await poll(newMail, swapped.saved, {
			credentials: productionCredentials,
			node: { credentialId: '2' },
		});
		expect(primed.items).toEqual([]);
		const fresh = (await control(production, '/mail', { sender_name: 'Production mail' })).mail.id;
		expect(
			ids(
				await poll(newMail, primed.saved, {
					credentials: productionCredentials,
					node: { credentialId: '2' },
				}),
			),
		).toEqual([fresh]);
	});

	test('Scan Completed on another account primes too: its completed scans are not emitted', async () => {
		const { saved } = await poll(scanCompleted);
		const pending = production.db.scans.find(
			(s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST',
		);
		await control(production, `/scans/${pending.id}/status`, { status: 'COMPLETED' });
		expect(
			(
				await poll(scanCompleted, saved, {
					credentials: productionCredentials,
					node: { credentialId: '2' },
				})
			).items,
		).toEqual([]);
	});
});

describe('deactivate and reactivate', () => {
	test('reactivating after a plain deactivation resumes: mail that arrived while the workflow was inactive is emitted once', async () => {
		const { saved } = await poll(newMail); // active
		// deactivated: no polls; n8n keeps the static data saved by the last poll that emitted or by the activation
		const whileInactive = [
			(await control(sandbox, '/mail', { sender_name: 'While inactive 1' })).mail.id,
			(await control(sandbox, '/mail', { sender_name: 'While inactive 2' })).mail.id,
		];
		const reactivated = await poll(newMail, saved); // the activation runs a poll with the saved state
		expect(ids(reactivated)).toEqual(whileInactive);
		expect((await poll(newMail, reactivated.saved)).items).toEqual([]);
	});
});

describe('the node renamed or copied, a manual run', () => {
	test('a manual run (Execute step, Fetch Test Event) shows the latest items and changes no state, on any account', async () => {
		const { saved } = await poll(newMail);
		const manual = await poll(newMail, saved, {
			mode: 'manual',
			credentials: productionCredentials,
		});
		expect(manual.items).toHaveLength(5);
		expect(manual.saved).toEqual(saved);
		const fresh = (await control(sandbox, '/mail', { sender_name: 'After the manual run' })).mail
			.id;
		expect(ids(await poll(newMail, saved))).toEqual([fresh]);
	});

	test('a copied trigger (new node id, no state) primes; the one-poll guard is per node, so the copy polls while the original runs', async () => {
		const { saved } = await poll(newMail, {}, { node: { id: 'original', name: 'Poll' } });
		sandbox.settings.latencyMs = 200;
		const original = poll(newMail, saved, { node: { id: 'original', name: 'Poll' } });
		await new Promise((resolve) => setTimeout(resolve, 50));
		const copy = await poll(newMail, {}, { node: { id: 'copy', name: 'Poll1' } });
		sandbox.settings.latencyMs = 0;
		expect(copy.items).toEqual([]);
		expect(Object.values(copy.saved)[0]?.recorded, 'the copy primed').toBeDefined();
		await original;
	});
	test("the one-poll guard is keyed on the workflow id and the node id: a renamed trigger's poll returns nothing while the running one ends; a duplicated workflow's trigger polls meanwhile", async () => {
		const original = { node: { id: 'original', name: 'Poll' }, workflowId: 'wf-guard-keys' };
		const { saved } = await poll(newMail, {}, original);
		sandbox.settings.latencyMs = 200;
		const running = poll(newMail, saved, original);
		await new Promise((resolve) => setTimeout(resolve, 50));
		const renamed = await poll(
			newMail,
			{},
			{ node: { id: 'original', name: 'Renamed Poll' }, workflowId: 'wf-guard-keys' },
		);
		const duplicated = await poll(
			newMail,
			{},
			{ node: { id: 'original', name: 'Poll' }, workflowId: 'wf-guard-keys-copy' },
		);
		sandbox.settings.latencyMs = 0;
		expect(renamed.items).toEqual([]);
		expect(JSON.stringify(renamed.saved), 'the renamed trigger did not poll').not.toContain(
			'recorded',
		);
		expect(duplicated.items).toEqual([]);
		expect(JSON.stringify(duplicated.saved), 'the duplicated workflow primed').toContain(
			'recorded',
		);
		await running;
	});
});

describe('a manual run while the trigger is active, options edited', () => {
	test("a manual run while a poll of the active trigger is running shows the latest items and does not release that poll's guard", async () => {
		const { saved } = await poll(newMail);
		sandbox.settings.latencyMs = 200;
		const running = poll(newMail, saved);
		await new Promise((resolve) => setTimeout(resolve, 50));
		const manual = await poll(newMail, saved, { mode: 'manual' });
		const overlapping = await poll(newMail, saved);
		sandbox.settings.latencyMs = 0;
		expect(manual.items).toHaveLength(5);
		expect(overlapping.items).toEqual([]);
		expect(overlapping.saved).toEqual(saved);
		await running;
	});

	test('turning Download File on (an option, not what is read) does not prime: the next poll emits the new mail with its photo', async () => {
		const { saved } = await poll(newMail);
		const fresh = (await control(sandbox, '/mail', { sender_name: 'Photo after the edit' })).mail
			.id;
		const next = await poll({ ...newMail, options: { downloadFile: true } }, saved);
		expect(ids(next)).toEqual([fresh]);
		expect(next.items[0].binary?.data).toMatchObject({ mimeType: 'image/jpeg' });
	});
});

describe('pinned data, renaming', () => {
	test('pinned data on the trigger: a manual execution uses it without polling, and the state is untouched', async () => {
		const { saved } = await poll(newMail);
		const staticData = JSON.parse(JSON.stringify(saved));
		const before = sandbox.requests.length;
		const { items, error } = await runNode({
			type: TYPES.poll,
			items: null,
			parameters: newMail,
			credentials: sandboxCredentials,
			staticData,
			pinData: { 'Virtual Mailbox': [{ json: { pinned: true } }] },
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ pinned: true }]);
		expect(sandbox.requests.length - before).toBe(0);
		expect(JSON.parse(JSON.stringify(staticData))).toEqual(saved);
	});

	test("a renamed trigger (n8n keeps a node's static data under its name) primes under its new name: nothing is replayed", async () => {
		const { saved } = await poll(newMail, {}, { node: { id: 'poll-1', name: 'Poll' } });
		const renamed = await poll(newMail, saved, { node: { id: 'poll-1', name: 'Mail poll' } });
		expect(renamed.items).toEqual([]);
		expect(Object.keys(renamed.saved).sort()).toEqual(['node:Mail poll', 'node:Poll']);
		const fresh = (await control(sandbox, '/mail', { sender_name: 'After the rename' })).mail.id;
		expect(
			ids(await poll(newMail, renamed.saved, { node: { id: 'poll-1', name: 'Mail poll' } })),
		).toEqual([fresh]);
	});
});

describe('one poll at a time, downloads included', () => {
	test('a poll that starts while the previous one is still downloading returns nothing and leaves the state alone', async () => {
		const parameters = { ...scanCompleted, options: { downloadFile: true } };
		const first = await poll(parameters);
		const pending = sandbox.db.scans.find(
			(s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST',
		);
		const seen = await poll(parameters, first.saved);
		await control(sandbox, `/scans/${pending.id}/status`, { status: 'COMPLETED' });
		let release;
		const held = new Promise((resolve) => (release = resolve));
		let downloading;
		const started = new Promise((resolve) => (downloading = resolve));
		let holding = true; // the first file-link request waits until the overlapping poll has ended
		sandbox.settings.onRequest = async (record) => {
			if (record.path.endsWith('/file') && holding) {
				holding = false;
				downloading();
				await held;
			}
		};
		const slow = poll(parameters, seen.saved);
		await started; // the first poll is in its downloads
		const before = sandbox.requests.length;
		const overlapping = await poll(parameters, seen.saved);
		release();
		expect(overlapping.items).toEqual([]);
		expect(overlapping.saved).toEqual(seen.saved);
		expect(sandbox.requests.slice(before).filter((r) => !r.path.endsWith('/file'))).toEqual([]);
		const done = await slow;
		expect(ids(done)).toEqual([pending.id]);
		expect(done.items[0].binary?.data).toMatchObject({ mimeType: 'application/pdf' });
	});

	test("a download cut off by the poll's deadline while its file-link request is in flight says so, not that the API kept failing", async () => {
		const parameters = { ...scanCompleted, options: { downloadFile: true } };
		const first = await poll(parameters);
		const pending = sandbox.db.scans.find(
			(s) => s.status === 'IN_PROCESS' && s.type === 'SCAN_REQUEST',
		);
		const seen = await poll(parameters, first.saved);
		await control(sandbox, `/scans/${pending.id}/status`, { status: 'COMPLETED' });
		Object.assign(retryPolicy, { downloadTimeoutMs: 300 });
		sandbox.settings.onRequest = async (record) => {
			if (record.path.endsWith('/file')) await new Promise((resolve) => setTimeout(resolve, 1_000));
		};
		const done = await poll(parameters, seen.saved);
		expect(ids(done)).toEqual([pending.id]);
		expect(done.items[0].json.download_error).toBe(
			"Not downloaded: this poll's downloads did not finish within 0.3 s",
		);
	});
});
