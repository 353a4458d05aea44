// One host rule for file links in every environment. Each spelling below is a
// link the webhook trigger is asked to download (Download File); it must be refused before any
// request, with Production and with Custom credentials alike. Nock refuses every real connection,
// so a link that was fetched would fail with another message. The rows marked † are the spellings
// (trailing dot, short forms, IPv6) a host check by plain string comparison lets through.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import nock from 'nock';
import { resetNock } from '../../support/api.mjs';
import { DEFAULT_CREDENTIALS, dist, runWebhook } from '../../harness/n8n-core-harness.mjs';
import { payloads, request } from '../../support/webhooks.mjs';

// Loaded when used, so that the spelling rows also run against builds without these helpers.
const isPrivateHost = (host) => dist('nodes/shared/transport/hosts.js').isPrivateHost(host);
const canonicalHost = (host) => dist('nodes/shared/transport/hosts.js').canonicalHost(host);
const fileLinkProblem = (link, options) =>
	dist('nodes/shared/transport/download.js').fileLinkProblem(link, options);

const { retryPolicy } = dist('nodes/shared/state/retryPolicy.js');
const savedPolicy = { ...retryPolicy };
beforeEach(() => {
	resetNock();
	// A link that was fetched fails at once (nock refuses the connection) instead of being retried.
	Object.assign(retryPolicy, { maxAttempts: 1 });
});
afterEach(() => Object.assign(retryPolicy, savedPolicy));

const production = { ...DEFAULT_CREDENTIALS, environment: 'production' };
const custom = DEFAULT_CREDENTIALS; // Base URL http://vmb.test
const PRIVATE = /private, loopback or link-local address/;

async function download(link, credentials) {
	const run = await runWebhook({
		parameters: { events: ['new-mail'], options: { downloadFile: true } },
		request: request({
			...payloads['new-mail'],
			id: Math.floor(Math.random() * 1e9),
			image_url: link,
		}),
		credentials,
		workflowId: `wf-hosts-${Math.random().toString(36).slice(2)}`,
	});
	const [item] = run.result.workflowData[0];
	expect(item).toBeDefined(); // the event is never dropped
	return item;
}

/** Every spelling tried: [host as written in an https link, what it is]. */
const REFUSED = [
	// names
	['localhost', 'loopback name'],
	['localhost.', 'loopback name, trailing dot †'],
	['localhost..', 'loopback name, two trailing dots †'],
	['LocalHost', 'loopback name, mixed case'],
	['api.localhost', 'a .localhost name'],
	['api.localhost.', 'a .localhost name, trailing dot †'],
	// IPv4 loopback in every spelling the URL parser accepts
	['127.0.0.1', 'loopback'],
	['127.0.0.1.', 'loopback, trailing dot'],
	['127.1', 'loopback, short form'],
	['127.0.1', 'loopback, short form'],
	['2130706433', 'loopback, decimal'],
	['0x7f000001', 'loopback, hex'],
	['0x7f.0.0.1', 'loopback, hex octet'],
	['0177.0.0.1', 'loopback, octal octet'],
	['017700000001', 'loopback, octal'],
	['127.000.000.001', 'loopback, zero-padded'],
	['127.255.255.254', 'loopback, top of 127/8'],
	// unspecified and "this network"
	['0.0.0.0', 'unspecified'],
	['0', 'unspecified, short form'],
	['0x0', 'unspecified, hex'],
	['0.1.2.3', '0/8'],
	// private, shared, link-local, reserved
	['10.0.0.5', 'private 10/8'],
	['167772165', 'private 10.0.0.5, decimal'],
	['012.0.0.5', 'private 10.0.0.5, octal octet'],
	['172.16.0.1', 'private 172.16/12'],
	['172.31.255.255', 'private 172.16/12, top'],
	['192.168.1.1', 'private 192.168/16'],
	['0xc0a80101', 'private 192.168.1.1, hex'],
	['100.64.0.1', 'carrier-grade NAT 100.64/10'],
	['169.254.169.254', 'link-local (cloud metadata)'],
	['0xa9fea9fe', 'link-local 169.254.169.254, hex'],
	['2852039166', 'link-local 169.254.169.254, decimal'],
	['192.0.0.8', 'IETF 192.0.0/24 †'],
	['198.18.0.1', 'benchmarking 198.18/15 †'],
	['224.0.0.1', 'multicast'],
	['255.255.255.255', 'broadcast'],
	['240.0.0.1', 'reserved 240/4'],
	// IPv6
	['[::1]', 'IPv6 loopback'],
	['[0:0:0:0:0:0:0:1]', 'IPv6 loopback, full form'],
	['[::]', 'IPv6 unspecified'],
	['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
	['[::ffff:7f00:1]', 'IPv4-mapped loopback, hex'],
	['[0:0:0:0:0:ffff:7f00:1]', 'IPv4-mapped loopback, full form'],
	['[::ffff:10.0.0.5]', 'IPv4-mapped private'],
	['[::ffff:169.254.169.254]', 'IPv4-mapped link-local'],
	['[::127.0.0.1]', 'IPv4-compatible loopback †'],
	['[::ffff:0:127.0.0.1]', 'IPv4-translated loopback'],
	['[64:ff9b::127.0.0.1]', 'NAT64 of loopback †'],
	['[64:ff9b::a9fe:a9fe]', 'NAT64 of 169.254.169.254 †'],
	['[64:ff9b:1::1]', 'NAT64 local-use prefix †'],
	['[2002:7f00:1::]', '6to4 of loopback †'],
	['[2002:a00:5::1]', '6to4 of 10.0.0.5 †'],
	['[2001:0:4136:e378::1]', 'Teredo †'],
	['[2001:db8::1]', 'documentation †'],
	['[fc00::1]', 'unique local fc00::/7'],
	['[fd12:3456:789a::1]', 'unique local fd00::/8'],
	['[fe80::1]', 'link-local fe80::/10'],
	['[febf:ffff::1]', 'link-local, top of fe80::/10'],
	['[fec0::1]', 'site-local (deprecated) †'],
	['[ff02::1]', 'multicast †'],
	['[100::1]', 'discard-only 100::/64 †'],
];

describe('file links: no private, loopback, link-local or unspecified host in any spelling, in any environment', () => {
	for (const [host, what] of REFUSED) {
		test(`https://${host}/f.pdf (${what}) is refused in Production and with Custom`, async () => {
			for (const credentials of [production, custom]) {
				const item = await download(`https://${host}/f.pdf`, credentials);
				expect(item.json.download_error, `${credentials.environment}`).toMatch(PRIVATE);
				expect(item.binary).toBeUndefined();
			}
		});
	}

	test('a link URL that cannot be parsed (an IPv6 zone id) is refused', async () => {
		const item = await download('https://[fe80::1%25eth0]/f.pdf', production);
		expect(item.json.download_error).toBe(
			'The file was not downloaded: the link is not a valid URL',
		);
	});

	test("with Custom, plain http is allowed only to the custom server's own host (any spelling of it), never to loopback or private hosts", async () => {
		nock('http://vmb.test')
			.get('/files/e.jpg')
			.reply(200, Buffer.from('jpeg'), { 'content-type': 'image/jpeg' });
		const own = await download('http://vmb.test/files/e.jpg', custom);
		expect(own.json.download_error).toBeUndefined();
		expect(own.binary.data.mimeType).toBe('image/jpeg');
		expect(
			fileLinkProblem(new URL('http://VMB.test./files/e.jpg'), {
				customHost: canonicalHost('vmb.test'),
			}),
		).toBeUndefined();
		for (const link of [
			'http://127.0.0.1/f.pdf',
			'http://localhost/f.pdf',
			'http://10.0.0.5/f.pdf',
			'http://elsewhere.test/f.pdf',
		]) {
			expect((await download(link, custom)).json.download_error, link).toMatch(
				/only https links are downloaded, not http/,
			);
		}
		for (const link of [
			'https://127.0.0.1/f.pdf',
			'https://10.0.0.5/f.pdf',
			'https://169.254.169.254/latest/meta-data',
		]) {
			expect((await download(link, custom)).json.download_error, link).toMatch(PRIVATE);
		}
	});

	test('a custom server on loopback (the local simulator) may serve its own links, and only those', () => {
		const customHost = canonicalHost('127.0.0.1');
		expect(
			fileLinkProblem(new URL('http://127.0.0.1:4010/files/e.jpg'), { customHost }),
		).toBeUndefined();
		expect(
			fileLinkProblem(new URL('http://127.1:4010/files/e.jpg'), { customHost }),
		).toBeUndefined(); // the same host, spelled short
		expect(fileLinkProblem(new URL('http://[::1]:4010/files/e.jpg'), { customHost })).toMatch(
			/only https/,
		);
		expect(fileLinkProblem(new URL('https://10.0.0.5/f.pdf'), { customHost })).toMatch(PRIVATE);
	});

	test('public hosts in the same spellings stay allowed (no false positives)', () => {
		for (const host of [
			'files.vmb.test',
			'8.8.8.8',
			'134744072',
			'0x8.8.8.8',
			'172.32.0.1',
			'100.128.0.1',
			'169.255.0.1',
			'[2606:4700:4700::1111]',
			'[::ffff:8.8.8.8]',
			'[64:ff9b::8.8.8.8]',
			'[2002:808:808::1]',
			'localhost.example.com',
			'127.0.0.1.nip.io',
		]) {
			expect(isPrivateHost(new URL(`https://${host}/`).hostname), host).toBe(false);
			expect(fileLinkProblem(new URL(`https://${host}/f.pdf`), {}), host).toBeUndefined();
		}
	});
});

describe('the API key over plain http', () => {
	test('a custom plain-http Base URL is warned about once; loopback is not', async () => {
		// getApiCredentials called directly with a context that records its logger's warnings.
		const { getApiCredentials } = dist('nodes/shared/transport/credentials.js');
		const warningsFor = async (credentials) => {
			const warnings = [];
			const ctx = {
				getCredentials: async () => credentials,
				logger: { warn: (text) => warnings.push(text) },
			};
			await getApiCredentials.call(ctx);
			await getApiCredentials.call(ctx); // the same run reads it once, and warns once
			await new Promise((r) => setImmediate(r));
			return warnings;
		};
		const remote = await warningsFor(custom);
		expect(remote).toHaveLength(1);
		expect(remote[0]).toBe(
			"Virtual Mailbox: the credential's Base URL http://vmb.test is plain http, so the API key is sent unencrypted. Use https.",
		);
		for (const baseUrl of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010'])
			expect(await warningsFor({ ...custom, baseUrl }), baseUrl).toEqual([]);
		expect(await warningsFor({ ...custom, baseUrl: 'https://proxy.vmb.test' })).toEqual([]);
		expect(await warningsFor(production)).toEqual([]);
	});
});
