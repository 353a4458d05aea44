// The "From List" modes of the action node's ID pickers (mail, scan, shipment, address, bank
// account), called as the editor calls them (n8n's LoadOptionsContext) against the simulator; and
// the ID parameters still taking the plain strings saved workflows may hold.
import { describe, expect, test } from 'vitest';
import { loadPackage, runListSearch, runNode } from '../../harness/n8n-core-harness.mjs';
import { simulatorForFile } from '../../harness/simulator.mjs';

const { sim, credentials } = await simulatorForFile({ count: 120, seed: 7 }, { reset: false });

const search = (method, filter, paginationToken) =>
	runListSearch({ method, filter, paginationToken, credentials });
const api = async (path) =>
	(await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.apiKey}` } })).json();
const lastRequest = () => sim.requests.at(-1);

describe('ID pickers', () => {
	test('mail, scan, shipment, address and bank account IDs are resource locators: From List (a method the node has) and By ID', async () => {
		const loader = await loadPackage();
		const { description, methods } = loader.nodeTypes.virtualMailbox.type;
		for (const [name, method] of [
			['mailId', 'searchMails'],
			['scanId', 'searchScans'],
			['shipmentId', 'searchShipments'],
			['addressId', 'searchAddresses'],
			['bankAccountId', 'searchBankAccounts'],
		]) {
			const declared = description.properties.filter((p) => p.name === name);
			expect(declared.length, name).toBeGreaterThan(0);
			for (const property of declared) {
				expect(property.type, name).toBe('resourceLocator');
				expect(
					property.modes.map((m) => m.name),
					name,
				).toEqual(['list', 'id']);
				expect(property.modes[0].typeOptions).toEqual({
					searchListMethod: method,
					searchable: true,
				});
			}
			expect(typeof methods.listSearch[method], method).toBe('function');
		}
		const mailById = description.properties.find((p) => p.name === 'mailId').modes[1];
		expect(new RegExp(mailById.validation[0].properties.regex).test('100002')).toBe(true);
		expect(new RegExp(mailById.validation[0].properties.regex).test('abc')).toBe(false);
	});

	test('mail: the newest first, one page at a time, each line naming sender, recipient, type, arrival and ID', async () => {
		const newest = await api('/v1/mails?sort=newest&limit=100');
		const first = await search('searchMails');
		expect(lastRequest().query).toMatchObject({ sort: ['newest'], limit: ['50'] });
		expect(first.results.map((r) => r.value)).toEqual(newest.data.slice(0, 50).map((m) => m.id));
		const [mail] = newest.data;
		expect(first.results[0].name).toBe(
			`${mail.sender_name} → ${mail.recipient_name} · ${mail.mail_type.replace(/_/g, ' ')} · ${mail.arrival_date.slice(0, 10)} · #${mail.id}`,
		);
		expect(first.paginationToken).toBeTruthy();
		const second = await search('searchMails', undefined, first.paginationToken);
		expect(second.results.map((r) => r.value)).toEqual(newest.data.slice(50, 100).map((m) => m.id));
	});

	test('mail: typing a sender or a recipient name searches the whole mailbox through the API', async () => {
		const all = (await api('/v1/mails?limit=100')).data;
		const sender = all.at(-1).sender_name;
		const bySender = await search('searchMails', sender.toUpperCase());
		expect(lastRequest().query.search).toEqual([sender.toUpperCase()]);
		const expected = all
			.filter((m) => m.sender_name === sender || m.recipient_name === sender)
			.map((m) => m.id)
			.sort();
		expect(bySender.results.map((r) => r.value).sort()).toEqual(expected);
		expect(bySender.results.length).toBeGreaterThan(0);
		const recipient = all[0].recipient_name;
		const byRecipient = await search('searchMails', recipient);
		expect(byRecipient.results.length).toBeGreaterThan(0);
		for (const r of byRecipient.results) expect(r.name).toContain(recipient);
	});

	test('scans: newest first, searchable through the API; lines name the mail item, label and status', async () => {
		const scans = (await api('/v1/scans?sort=newest&limit=50')).data;
		expect(scans.length).toBeGreaterThan(1);
		const listed = await search('searchScans');
		expect(listed.results.map((r) => r.value)).toEqual(scans.map((s) => s.id));
		const withLabel = scans.find((s) => s.label);
		expect(listed.results.find((r) => r.value === withLabel.id).name).toMatch(
			new RegExp(
				`^(Scan|Open and scan) of mail #${withLabel.mail_id} · .*${withLabel.status.toLowerCase().replace(/_/g, ' ')}`,
			),
		);
		const found = await search('searchScans', withLabel.label);
		expect(lastRequest().query.search).toEqual([withLabel.label]);
		expect(found.results.map((r) => r.value)).toContain(withLabel.id);
	});

	test('shipments and addresses: listed from the API and filtered by what their line shows', async () => {
		const shipments = (await api('/v1/shipments?limit=50')).data;
		const listed = await search('searchShipments');
		expect(listed.results.map((r) => r.value)).toEqual(shipments.map((s) => s.id));
		expect(listed.results[0].name).toContain(`${shipments[0].item_count} item`);
		const addresses = (await api('/v1/addresses')).data;
		const deposit = addresses.find((a) => a.type === 'deposit');
		const byCity = await search('searchAddresses', deposit.city.toLowerCase());
		expect(byCity.results).toEqual([
			{
				name: `${deposit.name}, ${deposit.line1}, ${deposit.city} (deposit${deposit.is_default ? ', default' : ''})`,
				value: deposit.id,
			},
		]);
		expect((await search('searchAddresses', 'no such place')).results).toEqual([]);
	});
});

describe('ID parameters take a picked item, an ID, or the plain string a saved workflow holds', () => {
	const mailId = () =>
		sim.requests.filter((r) => r.method === 'GET' && /^\/v1\/mails\/\d+$/.test(r.path)).at(-1).path;
	test('Mail → Get: From List, By ID and a plain string (older workflows) reach the same item', async () => {
		const [mail] = (await api('/v1/mails?limit=1')).data;
		for (const value of [
			{ __rl: true, mode: 'list', value: mail.id, cachedResultName: 'x' },
			{ __rl: true, mode: 'id', value: mail.id },
			mail.id,
		]) {
			const { items, error } = await runNode({
				parameters: { resource: 'mail', operation: 'get', mailId: value },
				credentials,
			});
			expect(error).toBeUndefined();
			expect(items[0].json.id).toBe(mail.id);
			expect(mailId()).toBe(`/v1/mails/${mail.id}`);
		}
	});
	test("By ID keeps its checks: a mail ID that is not a number fails before any request, typed (n8n's parameter check) or mapped (the node's)", async () => {
		const before = sim.requests.length;
		const typed = await runNode({
			parameters: {
				resource: 'mail',
				operation: 'get',
				mailId: { __rl: true, mode: 'id', value: 'abc' },
			},
			credentials,
		});
		// n8n itself refuses to run a node whose By ID value fails the mode's validation.
		expect(typed.error.message).toMatch(/has issues/);
		for (const mailId of [{ __rl: true, mode: 'id', value: '={{ "abc" }}' }, '={{ "abc" }}']) {
			const mapped = await runNode({
				parameters: { resource: 'mail', operation: 'get', mailId },
				credentials,
			});
			expect(mapped.error.message).toMatch(
				/Mail ID must be a numeric string such as "12345", got "abc"/,
			);
		}
		expect(sim.requests.length).toBe(before);
	});
});
