import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

// Copies of SERVERS (nodes/shared/constants.ts): credential test expressions cannot import.
// test/unit/credentials/credential.test.mjs fails if the two drift apart.
const PRODUCTION_URL = 'https://api.usglobalmail.com';
const SANDBOX_URL = 'https://api-sandbox.usglobalmail.com';

export class VirtualMailboxApi implements ICredentialType {
	name = 'virtualMailboxApi';

	displayName = 'Virtual Mailbox API';

	icon: Icon = {
		light: 'file:../icons/virtualMailbox.svg',
		dark: 'file:../icons/virtualMailbox.dark.svg',
	};

	documentationUrl = 'https://github.com/virtual-mailbox/n8n-nodes-virtual-mailbox#credentials';

	// Each field's help is a hint, shown under it (a description shows only on hover). The provider
	// does not publish its key prefixes (spec, Authentication: "a live prefix", "a test prefix"), so
	// the hints say which key goes with which environment rather than quote a prefix.
	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{
					name: 'Production',
					value: 'production',
					description: 'Your live mailbox, with a production (live) key',
				},
				{
					name: 'Sandbox',
					value: 'sandbox',
					description: "The provider's test server, with a sandbox (test) key",
				},
				{
					name: 'Custom',
					value: 'custom',
					description: 'Another base URL: the local simulator of npm run dev, or a proxy',
				},
			],
			default: 'production',
			hint:
				'Production for your real mail; Sandbox to try requests ' +
				'on test data; Custom for the local simulator or a proxy',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'http://127.0.0.1:4010',
			hint:
				'Server address, with or without the /v1 path. The ' +
				'local simulator of npm run dev: http://127.0.0.1:4010.',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			hint:
				'Dashboard → Settings → Developer → API keys. A production (live) key ' +
				'works only with Production, a sandbox (test) key only with Sandbox.',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			hint:
				'Only for the Virtual Mailbox Trigger: Dashboard → Settings → Automations ' +
				'→ Webhooks, the signing secret shared by all webhooks of the account',
		},
		{
			displayName: 'Rotating the Webhook Secret',
			name: 'webhookRotation',
			type: 'boolean',
			default: false,
			description:
				'Whether you just clicked "Reset Secret" in the dashboard: deliveries signed ' +
				'with the previous secret are then still accepted until you turn this off',
			hint:
				'On right after "Reset Secret" in the dashboard, with the old secret ' +
				'below: deliveries signed with either secret are accepted. Turn ' +
				'it off once deliveries signed with the old secret have stopped.',
		},
		{
			displayName: 'Previous Webhook Secret',
			name: 'previousWebhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			hint:
				'The secret before "Reset Secret": deliveries already signed with it are still ' +
				'accepted. Turn Rotating off (and clear this) once the rotation has settled.',
			displayOptions: { show: { webhookRotation: [true] } },
		},
	];

	// A function, not a declarative header: n8n 2.x renders a declarative one with its expression
	// engine, which a trigger's timer (the webhook trigger's catch-up interval) has no hold of, so
	// every such request failed. The header is the same; the HTTP Request node still uses it.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
			},
		};
	}

	test: ICredentialTestRequest = {
		request: {
			// As baseUrlOf (nodes/shared/transport/credentials.ts): a Base URL the nodes accept passes.
			baseURL:
				'={{ $credentials.environment === "custom" ' +
				'? String($credentials.baseUrl ?? "").trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "") ' +
				`: ($credentials.environment === "sandbox" ? "${SANDBOX_URL}" : "${PRODUCTION_URL}") }}`,
			url: '/v1/account',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					// Shown as is (no expressions); the nodes' own 401 errors name the likely mismatch.
					message:
						'The API key was rejected (401). A production (live) key works only ' +
						'with Production and a sandbox (test) key only with Sandbox: check that ' +
						'Environment matches the key, or create a new key in the dashboard.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key is valid but lacks permission to read the account (403)',
				},
			},
		],
	};
}
