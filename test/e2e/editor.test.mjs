// Real n8n's editor in headless Chromium: our nodes render with their icons, the panel shows the
// pickers, and the folder list is filled from the simulator. Screenshots go to test-artifacts/editor.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { chromium } from 'playwright-core';
import { startSimulator } from '../simulator/server.mjs';
import { freePort, OWNER, startN8n } from './real-n8n.mjs';
import { CREDENTIAL_ID, credentialFor } from './workflows.mjs';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/editor');
const credentials = { virtualMailboxApi: { id: CREDENTIAL_ID, name: 'Virtual Mailbox (local simulator)' } };
const WORKFLOW = {
	id: 'VmbEditorCheck01',
	name: 'Editor check',
	active: false,
	nodes: [
		{ id: 'e1', name: 'Virtual Mailbox Trigger', type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger', typeVersion: 1.1, position: [0, 0], webhookId: '0e1d0000-0000-4000-8000-000000000001', parameters: { events: ['new-mail'], options: {} }, credentials },
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
		executablePath: inject('chromiumPath'),
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
/** Every <img> of our icons on the canvas's nodes: src and whether it decoded (menus elsewhere may show more). */
const ourIcons = () =>
	page.$$eval('[data-test-id="canvas-node"] img', (els) => els.filter((e) => e.src.includes('/icons/n8n-nodes-virtual-mailbox/')).map((e) => ({ src: e.src, width: e.naturalWidth })));

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
	// n8n 2.x closes the panel with its close button, 1.x with "Back to canvas".
	await page.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]').first().click({ timeout: 5_000 }).catch(() => {});
	await page.waitForSelector('[data-test-id="ndv"]', { state: 'hidden', timeout: 10_000 }).catch(async () => await page.getByText('Back to canvas').click());
	await page.waitForSelector('[data-test-id="ndv"]', { state: 'hidden', timeout: 10_000 });
}, 120_000);

test('the node creator finds all three nodes by name', async () => {
	await page.click('[data-test-id="node-creator-plus-button"]');
	await page.keyboard.type('Virtual Mailbox');
	await page.waitForTimeout(1500);
	await shot('node-creator-search');
	// Only the creator panel counts (the canvas behind it shows the node names too).
	const panel = await page.locator('[data-test-id="node-creator"]').textContent();
	// All three entries; n8n 1.x lists them by name only (triggers without the word "Trigger"),
	// 2.x with their descriptions.
	expect(panel.split('Virtual Mailbox').length - 1).toBeGreaterThanOrEqual(3);
	if (n8n.runtime.major >= 2) {
		expect(panel).toContain('Read and act on virtual mailbox mail');
		expect(panel).toContain('Starts the workflow when mail arrives or a scan');
		expect(panel).toContain('by checking the mailbox on a schedule');
	}
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

test('both icons read at 16 px and 64 px: visible shapes with contrast on their own background', async () => {
	const svg = (name) => `data:image/svg+xml;base64,${fs.readFileSync(path.resolve(ARTIFACTS, '../../icons', name)).toString('base64')}`;
	const icons = { light: { src: svg('virtualMailbox.svg'), background: '#ffffff' }, dark: { src: svg('virtualMailbox.dark.svg'), background: '#1f1f1f' } };
	await page.setContent(
		`<body style="margin:0;display:flex;gap:24px;padding:24px;background:#888">${Object.entries(icons)
			.map(([theme, { src, background }]) => [16, 64].map((size) => `<div style="background:${background};padding:8px"><img id="${theme}-${size}" src="${src}" width="${size}" height="${size}"></div>`).join(''))
			.join('')}</body>`,
	);
	await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
	await shot('icons-16-64');
	const stats = await page.evaluate((backgrounds) => {
		const out = {};
		for (const img of document.images) {
			const canvas = document.createElement('canvas');
			canvas.width = canvas.height = img.width;
			const ctx = canvas.getContext('2d');
			ctx.fillStyle = backgrounds[img.id.split('-')[0]];
			ctx.fillRect(0, 0, img.width, img.height);
			ctx.drawImage(img, 0, 0, img.width, img.height);
			const { data } = ctx.getImageData(0, 0, img.width, img.height);
			const luminance = [];
			for (let i = 0; i < data.length; i += 4) luminance.push(0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]);
			const bg = luminance[0];
			out[img.id] = { covered: luminance.filter((l) => Math.abs(l - bg) > 40).length / luminance.length, spread: Math.max(...luminance) - Math.min(...luminance) };
		}
		return out;
	}, { light: icons.light.background, dark: icons.dark.background });
	for (const [id, { covered, spread }] of Object.entries(stats)) {
		expect(covered, `${id}: share of pixels that stand out from the background`).toBeGreaterThan(0.25);
		expect(spread, `${id}: luminance range`).toBeGreaterThan(100);
	}
}, 60_000);

// The example workflows (examples/*.json), each opened as a user who imported it sees it: every node
// known to this n8n and the sticky note saying what to set up.
// A screenshot of each lands in test-artifacts/editor/example-<name>.png.
test('the editor opens every example', async () => {
	const { exampleWorkflows } = await import('./examples.mjs');
	const { restClient } = await import('./real-n8n.mjs');
	const rest = await restClient(n8n.base);
	await page.emulateMedia({ colorScheme: 'light' });
	await page.evaluate(() => localStorage.setItem('N8N_THEME', 'light'));
	const examples = exampleWorkflows();
	expect(examples.length).toBeGreaterThanOrEqual(5);
	for (const { file, workflow } of examples) {
		const { id: _id, active: _active, ...body } = workflow;
		const created = (await rest.call("POST", "/rest/workflows", { ...body, active: false, name: `${workflow.name} (editor check)` })).data;
		await page.goto(`${n8n.base}/workflow/${created.id}`);
		const nodes = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
		await page.waitForFunction(
			(names) => names.every((name) => [...document.querySelectorAll('[data-test-id="canvas-node"]')].some((e) => e.textContent.includes(name))) && [...document.images].every((i) => i.complete),
			nodes.map((n) => n.name),
			{ timeout: 60_000 },
		);
		await page.waitForTimeout(500);
		await shot(`example-${file.replace(/\.json$/, '')}`);
		const canvas = await page.locator('[data-test-id="canvas-node"]').allTextContents();
		for (const node of nodes) expect(canvas.some((text) => text.includes(node.name)), `${file}: ${node.name}`).toBe(true);
		// The sticky note's heading; n8n marks a node whose type or version it lacks "not installed".
		await expect(page.getByText('Set up', { exact: true }).count(), `${file}: sticky note`).resolves.toBeGreaterThan(0);
		expect(await page.locator('body').textContent(), file).not.toMatch(/not (currently )?installed/i);
	}
}, 300_000);
