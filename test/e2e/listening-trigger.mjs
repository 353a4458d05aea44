// A workflow the user builds (a Virtual Mailbox Trigger, then a step) made to listen for a test
// event the way a user does it: signed in to real n8n's editor in headless Chromium, Execute
// workflow clicked. Shared by the end-to-end tests that deliver to a trigger's Test URL.
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { signIn } from './real-n8n.mjs';
import { CREDENTIAL_ID } from './workflows.mjs';

/** A Virtual Mailbox Trigger as n8n adds it (version 2) listening for new mail, then a No Op named "Got it". */
export function listeningTriggerWorkflow({ id, name, webhookId }) {
	return {
		id,
		name,
		active: false,
		nodes: [
			{
				id: `${id}-trigger`,
				name: 'Virtual Mailbox Trigger',
				type: 'n8n-nodes-virtual-mailbox.virtualMailboxTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: { events: ['new-mail'], options: {} },
				credentials: {
					virtualMailboxApi: { id: CREDENTIAL_ID, name: 'Virtual Mailbox (local simulator)' },
				},
			},
			{
				id: `${id}-step`,
				name: 'Got it',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [300, 0],
				parameters: {},
			},
		],
		connections: {
			'Virtual Mailbox Trigger': { main: [[{ node: 'Got it', type: 'main', index: 0 }]] },
		},
		settings: {},
		pinData: {},
	};
}

/** Headless Chromium without its own background traffic. */
export async function launchChromium(executablePath) {
	return await chromium.launch({
		executablePath,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
}

/**
 * The workflow open in the editor of the n8n at `base`, signed in as the owner, with Execute workflow
 * clicked: its trigger listens at its Test URL (n8n registers it a moment after the click).
 */
export async function listenForTestEvent(browser, base, workflowId) {
	const editor = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	// The editor's first load fetches all of its scripts: over 30 s on a 2-core machine under load.
	editor.setDefaultNavigationTimeout(120_000);
	await signIn(editor, base);
	await editor.goto(`${base}/workflow/${workflowId}`);
	await editor.waitForSelector('[data-test-id="canvas-node"]', { timeout: 60_000 });
	await editor.locator('[data-test-id="execute-workflow-button"]').first().click();
	return editor;
}

/** Closes what such a test started (any of it may be missing when its set-up failed) and removes its home folder. */
export async function stopAll({ browser, n8n, sim, home }) {
	await browser?.close();
	await n8n?.stop();
	await sim?.close();
	if (home) fs.rmSync(home, { recursive: true, force: true });
}
