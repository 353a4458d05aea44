import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getId } from '../../../shared/validate';
import { apiRequest, requireSandbox, segment } from '../../../shared/transport';
import { scanIdField } from './Scan.fields';
import { forOperation } from '../../../shared/display';

const properties: INodeProperties[] = [
	scanIdField,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Label',
				name: 'label',
				type: 'string',
				default: '',
				description: 'Short document label to set on the scan',
			},
			{
				displayName: 'Summary',
				name: 'summary',
				type: 'string',
				typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Bullet Point' },
				default: [],
				description: 'Bullet points, readable afterwards through Get Summary',
			},
		],
	},
];

export const description = forOperation('scan', 'complete', properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	await requireSandbox.call(this, 'Complete (Sandbox)', i);
	const id = getId.call(this, 'scanId', i, 'Scan ID', 'text');
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.label !== undefined && fields.label !== '') body.label = String(fields.label);
	if (fields.summary !== undefined) {
		const summary = fields.summary;
		if (!Array.isArray(summary) || summary.some((entry) => typeof entry !== 'string')) {
			throw new NodeOperationError(
				this.getNode(),
				'Summary must be a list of strings (one bullet point each)',
				{
					itemIndex: i,
					description: `Got ${JSON.stringify(summary)}.`,
				},
			);
		}
		body.summary = summary;
	}
	return await apiRequest.call(this, 'POST', `/v1/sandbox/scans/${segment(id)}/complete`, {
		body,
		itemIndex: i,
	});
}
