import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkOneOf, getId } from '../../../shared/validate';
import { apiRequest } from '../../../shared/transport';
import { mailIdField } from '../mail/Mail.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('scan', 'create', [
	{
		displayName:
			'Billable: every run (every input item) asks the mailroom to scan, or open and scan, a ' +
			'mail item, charged as your plan says. Try a workflow with a Sandbox credential first.',
		name: 'createNotice',
		type: 'notice',
		default: '',
	},
	mailIdField,
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		default: 'scan',
		description:
			'Letters and large letters take a scan; magazines, catalogs, ' +
			'softpaks and packages take an open-and-scan request',
		options: [
			{
				name: 'Scan',
				value: 'scan',
				description: "Scan the envelope's contents without keeping the item opened",
			},
			{
				name: 'Open and Scan',
				value: 'open',
				description: 'Open (unbox) the item and scan what is inside',
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Expedited',
				name: 'isExpedited',
				type: 'boolean',
				default: false,
				description:
					'Whether to ask for the faster (30 minutes to 2 hours, business days), dearer service',
			},
			{
				displayName: 'Instruction',
				name: 'instruction',
				type: 'string',
				default: '',
				description: 'Note for the mailroom, such as which pages to scan',
			},
		],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const mailId = getId.call(this, 'mailId', i, 'Mail ID', 'numeric');
	const type = checkOneOf.call(
		this,
		this.getNodeParameter('type', i),
		['scan', 'open'] as const,
		'Type',
		i,
	);
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	const body: IDataObject = { mail_id: mailId, type };
	if (fields.instruction) body.instruction = String(fields.instruction);
	if (fields.isExpedited !== undefined) body.is_expedited = fields.isExpedited === true;
	// Billable and not idempotent: the transport never retries it unless the server answered 429.
	return await apiRequest.call(this, 'POST', '/v1/scans', { body, itemIndex: i });
}
