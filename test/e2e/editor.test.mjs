// Real n8n's editor in headless Chromium: our nodes render with their icons, the panel shows the
// pickers, and the folder list is filled from the simulator. Screenshots go to test-artifacts/editor.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { chromium } from 'playwright-core';
import { startSimulator } from '../simulator/server.mjs';
import { freePort, OWNER, startN8n } from './n8n.mjs';
import { CREDENTIAL_ID, credentialFor } from './workflows.mjs';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/editor');
const credentials = { virtualMailboxApi: { id: CREDENTIAL_ID, name: 'Virtual Mailbox (local simulator)' } };
const WORKFLOW = {
	id: 'VmbEditorCheck01',
	name: 'Editor check',
	active: false,
	nodes: [
		{ id: 'e1', name: 'Virtual Mailbox Trigger', type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger', typeVersion: 1, position: [0, 0], webhookId: '0e1d0000-0000-4000-8000-000000000001', parameters: { events: ['new-mail'], options: {} }, credentials },
		{ id: 'e2', name: 'Virtual Mailbox Poll Trigger', type: 'n8n-nodes-virtual-mailbox.virtualMailboxPollTrigger', typeVersion: 1, position: [0, 300], parameters: { event: 'new-mail', filters: {}, options: {} }, credentials },
		{ id: 'e3', name: 'Virtual Mailbox', type: 'n8n-nodes-virtual-mailbox.virtualMailbox', typeVersion: 1, position: [400, 0], parameters: { resource: 'folder', operation: 'update', folderId: { __rl: true, mode: 'list', value: '' } }, credentials },
	],
	connections: { 'Virtual Mailbox Trigger': { main: [[{ node: 'Virtual Mailbox', type: 'main', index: 0 }]] } },
	settings: {},
	pinData: {},
};

let sim;
let n8n;
let browser;
let page;
let userFolder;
beforeAll(async () => {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	sim = await startSimulator({ count: 20 });
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'vmb-editor-'));
	n8n = await startN8n({ userFolder, port: await freePort(), credentials: [credentialFor(sim)], workflows: [WORKFLOW] });
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(`${n8n.base}/signin`);
	await page.fill('input[type=email]', OWNER.email);
	await page.fill('input[type=password]', OWNER.password);
	await page.keyboard.press('Enter');
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
}, 900_000);

afterAll(async () => {
	await browser?.close();
	await n8n?.stop();
	await sim?.close();
	if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
}, 60_000);

const shot = (name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
/** Every <img> of our icons on the page: src and whether it decoded. */
const ourIcons = () => page.$$eval('img', (els) => els.filter((e) => e.src.includes('/icons/n8n-nodes-virtual-mailbox/')).map((e) => ({ src: e.src, width: e.naturalWidth })));

test('each of our nodes renders on the canvas with its light icon', async () => {
	await page.goto(`${n8n.base}/workflow/${WORKFLOW.id}`);
	await page.waitForSelector('[data-test-id="canvas-node"]', { timeout: 60_000 });
	await page.waitForFunction(() => document.querySelectorAll('[data-test-id="canvas-node"]').length === 3 && [...document.images].every((i) => i.complete));
	await shot('canvas-light');
	const icons = await ourIcons();
	expect(icons).toHaveLength(3);
	for (const icon of icons) {
		expect(icon.src).toMatch(/\/dist\/icons\/virtualMailbox\.svg$/);
		expect(icon.width).toBeGreaterThan(0);
	}
	for (const name of WORKFLOW.nodes.map((n) => n.name)) await expect(page.getByText(name, { exact: true }).count()).resolves.toBeGreaterThan(0);
}, 120_000);

test('the action node panel shows the resource and operation pickers, and the folder list comes from the simulator', async () => {
	// The action node is the one whose subtitle shows its operation.
	await page.locator('[data-test-id="canvas-node"]').filter({ hasText: 'update: folder' }).dblclick();
	await page.waitForSelector('[data-test-id="ndv"]');
	expect(await page.inputValue('[data-test-id="parameter-input-resource"] input')).toBe('Folder');
	expect(await page.inputValue('[data-test-id="parameter-input-operation"] input')).toBe('Update');
	await shot('panel-pickers');
	await page.click('[data-test-id="rlc-input"]');
	await page.waitForSelector('[data-test-id="rlc-item"]', { timeout: 30_000 });
	const folders = await page.$$eval('[data-test-id="rlc-item"]', (els) => els.map((e) => e.textContent.trim()));
	expect(folders).toEqual(['Banking', 'Bills', 'Health', 'Insurance', 'Receipts', 'Taxes']);
	expect(sim.requests.some((r) => r.method === 'GET' && r.path === '/v1/folders')).toBe(true);
	await shot('panel-folder-list');
	await page.keyboard.press('Escape');
	await page.click('[data-test-id="ndv-close-button"]').catch(() => {});
}, 120_000);

test('the node creator finds all three nodes by name', async () => {
	await page.click('[data-test-id="node-creator-plus-button"]');
	await page.keyboard.type('Virtual Mailbox');
	await page.waitForTimeout(1500);
	await shot('node-creator-search');
	// Only the creator panel counts (the canvas behind it shows the node names too).
	const panel = await page.locator('[data-test-id="node-creator"]').textContent();
	expect(panel).toContain('Read and act on virtual mailbox mail');
	expect(panel).toContain('Starts the workflow when mail arrives or a scan');
	expect(panel).toContain('by checking the mailbox on a schedule');
	await page.keyboard.press('Escape');
}, 120_000);

test('with the dark theme the editor switches to the dark icon', async () => {
	await page.emulateMedia({ colorScheme: 'dark' });
	await page.evaluate(() => localStorage.setItem('N8N_THEME', 'dark'));
	await page.goto(`${n8n.base}/workflow/${WORKFLOW.id}`);
	await page.waitForSelector('[data-test-id="canvas-node"]', { timeout: 60_000 });
	await page.waitForFunction(() => [...document.images].every((i) => i.complete));
	await shot('canvas-dark');
	const icons = await ourIcons();
	expect(icons).toHaveLength(3);
	for (const icon of icons) {
		expect(icon.src).toMatch(/\/dist\/icons\/virtualMailbox\.dark\.svg$/);
		expect(icon.width).toBeGreaterThan(0);
	}
}, 120_000);
