// The least a community webhook trigger can do: take the JSON body and start the workflow. It goes
// through the same n8n path as any non-built-in trigger (per-request expression isolate included).
class BenchFloorTrigger {
	constructor() {
		this.description = {
			displayName: 'Bench Floor Trigger',
			name: 'benchFloorTrigger',
			group: ['trigger'],
			version: 2, // not 1: n8n evaluates an expression per request for webhook nodes at version 1
			description: 'Benchmark baseline',
			defaults: { name: 'Bench Floor Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [
				{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
			],
			properties: [],
		};
		this.webhookMethods = {
			default: {
				checkExists: async () => true,
				create: async () => true,
				delete: async () => true,
			},
		};
	}

	async webhook() {
		return { workflowData: [[{ json: this.getBodyData() }]] };
	}
}
module.exports = { BenchFloorTrigger };
