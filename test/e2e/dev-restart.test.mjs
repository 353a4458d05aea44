// `npm run dev` the second time, as a user meets it: n8n's data persists in the dev home, and the
// user follows the banner (publishes "file new mail by sender" and unpublishes "file mail by rules"),
// deletes an example and renames one, then starts `npm run dev` again. The second start must be
// ready, print its banner from what is published now, and the simulator must deliver to exactly
// that. Then the mailroom page (headless Chromium) against that session: subscriptions by workflow
// name, n8n's answers in words, whole shipment ids, and the answer to a click in view where the
// button is. One dev home, two starts of the real dev command (test/dev.mjs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { freePort, restClient, untilUnpublished, waitFor } from './real-n8n.mjs';
import { launchChromium } from './listening-trigger.mjs';
import { exampleWorkflows } from './examples.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts/editor');
const example = (file) => exampleWorkflows().find((w) => w.file === file);
const RULES = example('file-mail-by-rules.json');
const SENDER = example('file-new-mail-by-sender.json');
const ALERT = example('package-arrived-alert.json');
const SCANS = example('save-completed-scans.json');
const RENAMED = 'My scans, saved';

let home;
let ports;
let dev;
let second;
let browser;

/** One `npm run dev` (test/dev.mjs) in the dev home: its output lines, ready once the banner is out. */
function startDev() {
	const child = spawn(process.execPath, [path.join(ROOT, 'test/dev.mjs')], {
		cwd: ROOT,
		env: {
			...Object.fromEntries(
				Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_ENV'),
			),
			VMB_DEV_HOME: home,
			N8N_PORT: String(ports.n8n),
			SIM_PORT: String(ports.sim),
			VMB_DEV_NO_BUILD: '1', // the test run built the package once
		},
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	const run = { child, output: '' };
	for (const stream of [child.stdout, child.stderr])
		stream.on('data', (chunk) => {
			run.output += chunk.toString();
		});
	run.exited = new Promise((resolve) => child.once('exit', resolve));
	run.ready = waitFor(
		async () => run.output.includes('is running with the Virtual Mailbox nodes'),
		600_000,
		() => child.exitCode !== null,
		'the dev banner',
	).catch((error) => {
		throw new Error(`${error.message}\n--- npm run dev said ---\n${run.output.slice(-4000)}`);
	});
	run.stop = async () => {
		if (child.exitCode !== null) return;
		child.kill('SIGINT');
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}, 60_000);
		await run.exited;
		clearTimeout(timer);
	};
	return run;
}

const sim = (p) => `http://127.0.0.1:${ports.sim}${p}`;
const subscriptions = async () => (await fetch(sim('/_control/webhooks'))).json();
const production = (w) => `http://127.0.0.1:${ports.n8n}/webhook/${w.path}`;

beforeAll(async () => {
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-dev-restart-'));
	ports = { n8n: await freePort(), sim: await freePort() };
	dev = startDev();
	await dev.ready;
	// What the user does in n8n between the two starts.
	const rest = await restClient(`http://127.0.0.1:${ports.n8n}`);
	const saved = async (w) => (await rest.call('GET', `/rest/workflows/${w.workflow.id}`)).data;
	await rest.call('POST', `/rest/workflows/${RULES.workflow.id}/deactivate`, {});
	await rest.call('POST', `/rest/workflows/${SENDER.workflow.id}/activate`, {
		versionId: (await saved(SENDER)).versionId,
	});
	// As the editor deletes a published workflow: unpublish, archive, delete.
	await rest.call('POST', `/rest/workflows/${ALERT.workflow.id}/deactivate`, {});
	await untilUnpublished(() =>
		rest.call('POST', `/rest/workflows/${ALERT.workflow.id}/archive`, {}),
	);
	await untilUnpublished(() => rest.call('DELETE', `/rest/workflows/${ALERT.workflow.id}`));
	const scans = await saved(SCANS);
	await rest.call('PATCH', `/rest/workflows/${SCANS.workflow.id}`, {
		name: RENAMED,
		versionId: scans.versionId,
	});
	await dev.stop();
	second = startDev();
	await second.ready;
}, 1_500_000);

afterAll(async () => {
	await browser?.close();
	await dev?.stop();
	await second?.stop();
	fs.rmSync(home, { recursive: true, force: true });
}, 180_000);

describe('npm run dev, started again after the user changed what is published', () => {
	test('the second start is ready and its banner names what is published now, and how to try the rest', () => {
		const banner = second.output.slice(second.output.indexOf('is running with'));
		expect(second.output).toContain('Starting n8n…');
		expect(second.output).not.toContain('importing');
		expect(banner).toMatch(
			new RegExp(
				`Published, with a Virtual Mailbox Trigger the simulator delivers to: .*"${SENDER.workflow.name}"`,
			),
		);
		expect(banner).toContain(`"${RENAMED}"`);
		const published = banner.split('\n').find((l) => l.startsWith('Published, with'));
		expect(published).not.toContain(RULES.workflow.name);
		expect(published).not.toContain(ALERT.workflow.name);
		// "file mail by rules" is unpublished now: the branch example needs only publishing.
		expect(banner).toContain(
			'"Virtual Mailbox: branch mail by rules (Switch)" is not published: publish it to try it.',
		);
		expect(banner).not.toContain('file new mail by sender" is not published');
		// The samples no longer promise what the unpublished and deleted examples did.
		expect(banner).not.toContain('the package alert runs');
		expect(banner).toContain('  a package:\n');
	});

	test('the simulator is subscribed to exactly the published triggers, and new mail reaches exactly those', async () => {
		const expected = [SENDER, SCANS]
			.flatMap((w) => w.events.map((event) => `${event} ${production(w)}`))
			.sort();
		expect((await subscriptions()).map((s) => `${s.event} ${s.url}`).sort()).toEqual(expected);
		const { deliveries } = await (
			await fetch(sim('/_control/mail'), {
				method: 'POST',
				body: JSON.stringify({ sender_name: 'Second Start Sender', mail_type: 'letter' }),
			})
		).json();
		expect(deliveries.map((d) => `${d.url} ${d.status}`)).toEqual([`${production(SENDER)} 200`]);
		// n8n's answer in words, by workflow name (n8n itself answers the literal text "firstEntryJson").
		expect(deliveries[0]).toMatchObject({
			said: 'received: the workflow runs',
			name: SENDER.workflow.name,
		});
	});

	test('each subscription is listed with its workflow name, as n8n has it now', async () => {
		const names = Object.fromEntries((await subscriptions()).map((s) => [s.url, s.name]));
		expect(names).toEqual({
			[production(SENDER)]: SENDER.workflow.name,
			[production(SCANS)]: RENAMED,
		});
	});
});

describe('the mailroom page', () => {
	test('lists subscriptions by workflow name, says what n8n answered in words, shows whole shipment ids, and keeps the answer to a click in view', async () => {
		browser = await launchChromium(inject('chromiumPath'));
		const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
		await page.goto(sim('/mailroom'));
		await page.waitForSelector('#subscriptions tbody tr');
		const subscriptionRows = await page.$$eval('#subscriptions tbody tr', (rows) =>
			rows.map((r) => r.children[0].textContent),
		);
		expect(subscriptionRows).toContain(SENDER.workflow.name);
		expect(subscriptionRows).toContain(RENAMED);

		await page.fill('#sender', 'Mailroom Sender');
		await page.selectOption('#mail-type', 'letter');
		await page.click('#log-mail');
		await page.waitForFunction(
			() =>
				/Logged letter from Mailroom Sender: 1 delivery sent/.test(
					document.querySelector('#message').textContent,
				),
			null,
			{ timeout: 30_000 },
		);
		const message = await page.textContent('#message');
		expect(message).toContain(`"${SENDER.workflow.name}": received: the workflow runs`);
		await page.waitForFunction(() =>
			[...document.querySelectorAll('#deliveries tbody tr')].some(
				(tr) =>
					tr.textContent.includes('Mailroom Sender') ||
					tr.textContent.includes('received: the workflow runs'),
			),
		);
		expect(await page.textContent('#deliveries')).not.toContain('firstEntryJson');

		// Ship the newest mail item; then mark that shipment shipped, far down the page.
		const logged = (await (await fetch(sim('/_control/state'))).json()).mails.find(
			(m) => m.sender_name === 'Mailroom Sender',
		);
		await page
			.locator('#mails tbody tr', { hasText: 'Mailroom Sender' })
			.locator('button[data-action="Ship"]')
			.click();
		await page.waitForFunction(() =>
			/^Shipped /.test(document.querySelector('#message').textContent),
		);
		const shipment = (await (await fetch(sim('/_control/state'))).json()).shipments.find((s) =>
			s.mail_items.some((m) => m.id === logged.id),
		);
		expect(shipment.id).not.toMatch(/^0+\d$/);
		const row = page.locator('#shipments tbody tr', { hasText: shipment.id });
		await row.waitFor();
		const markShipped = row.locator('button[data-action="Mark shipped"]');
		// The page redraws its tables as the simulator changes: click() finds the button again if
		// a redraw replaced it (a scroll to it by hand failed on a detached one).
		await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
		await markShipped.click();
		await page.waitForFunction(
			(id) => document.querySelector('#message').textContent.startsWith(`Shipment ${id} shipped`),
			shipment.id,
		);
		const scrolled = await page.evaluate(() => window.scrollY);
		expect(scrolled).toBeGreaterThan(0);
		const box = await page.locator('#message').boundingBox();
		expect(box.y).toBeGreaterThanOrEqual(0);
		expect(box.y + box.height).toBeLessThanOrEqual(800);
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		await page.screenshot({ path: path.join(ARTIFACTS, 'mailroom-after-ship.png') });
		await page.screenshot({ path: path.join(ARTIFACTS, 'mailroom-full.png'), fullPage: true });
	});
});
