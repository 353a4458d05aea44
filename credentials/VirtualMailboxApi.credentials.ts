import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

// Literal copies of SERVERS in nodes/shared/constants.ts: credential test expressions cannot import.
// test/unit/credential.test.mjs fails if the two drift apart.
const PRODUCTION_URL = 'https://api.usglobalmail.com';
const SANDBOX_URL = 'https://api-sandbox.usglobalmail.com';

export class VirtualMailboxApi implements ICredentialType {
	name = 'virtualMailboxApi';

	displayName = 'Virtual Mailbox API';

	icon: Icon = { light: 'file:../icons/virtualMailbox.svg', dark: 'file:../icons/virtualMailbox.dark.svg' };

	documentationUrl =
		'https://github.com/virtual-mailbox/n8n-nodes-virtual-mailbox#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'production', description: 'Live mailbox; keys with the live prefix' },
				{ name: 'Sandbox', value: 'sandbox', description: 'Test server; keys with the test prefix' },
				{ name: 'Custom', value: 'custom', description: 'Another base URL, such as a local simulator or a proxy' },
			],
			default: 'production',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'http://127.0.0.1:4010',
			description: 'Server address, with or without the /v1 path',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Dashboard: Settings → Developer → API keys. Production keys start with the live prefix, sandbox keys with the test prefix.',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Only for the Virtual Mailbox Trigger. Dashboard: Settings → Automations → Webhooks, the signing secret shared by all webhooks of the account.',
		},
		{
			displayName: 'Previous Webhook Secret',
			name: 'previousWebhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'After "Reset Secret" in the dashboard, paste the old secret here so deliveries already signed with it are still accepted; clear it once the rotation has settled',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			// The same as baseUrlOf in nodes/shared/transport/credentials.ts (trimmed, trailing slashes and
			// /v1 dropped), so a Base URL the nodes accept passes the test.
			baseURL: `={{ $credentials.environment === "custom" ? String($credentials.baseUrl ?? "").trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "") : ($credentials.environment === "sandbox" ? "${SANDBOX_URL}" : "${PRODUCTION_URL}") }}`,
			url: '/v1/account',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					// n8n shows this text as is (no expressions); the node's own 401 errors name the likely mismatch.
					message:
						'The API key was rejected (401). Production keys carry the live prefix and sandbox keys the test prefix: check that Environment matches the key, or create a new key in the dashboard.',
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
