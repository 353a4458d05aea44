import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { SEED_MAIL_TYPES } from '../../../shared/constants';
import { checkOneOf } from '../../../shared/validate';
import { apiRequest, requireSandbox } from '../../../shared/transport';
import { forOperation } from '../../../shared/display';

const inches = (name: string, displayName: string): INodeProperties => ({
	displayName,
	name,
	type: 'number',
	typeOptions: { minValue: 0.01, numberPrecision: 2 },
	default: 1,
	description: 'Inches; give all three dimensions or none',
});

export const description: INodeProperties[] = forOperation('mail', 'seedMailItem', [
	{
		displayName: 'Mail Type',
		name: 'seedMailType',
		type: 'options',
		default: 'LETTER',
		description:
			'Letters and large letters take a scan request; the other types an open-and-scan ' +
			'request. Get Many lists them under the lower-case type (LARGELETTER as large_letter).',
		options: [
			{ name: 'Catalog', value: 'CATALOG' },
			{ name: 'Large Letter', value: 'LARGELETTER' },
			{ name: 'Letter', value: 'LETTER' },
			{ name: 'Magazine', value: 'MAGAZINE' },
			{ name: 'Package', value: 'PACKAGE' },
			{ name: 'Softpak', value: 'SOFTPAK' },
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			inches('height', 'Height'),
			inches('length', 'Length'),
			{
				displayName: 'Sender Name',
				name: 'senderName',
				type: 'string',
				default: '',
				description: 'Who the item is from',
			},
			{
				displayName: 'Weight',
				name: 'weight',
				type: 'number',
				typeOptions: { minValue: 0.01, numberPrecision: 2 },
				default: 0.1,
				description: 'Pounds',
			},
			inches('width', 'Width'),
		],
	},
]);

const DIMENSIONS = [
	['width', 'Width'],
	['height', 'Height'],
	['length', 'Length'],
] as const;

/** POST /v1/sandbox/seed/mail (beyond the published spec), sandbox only: outputs `{ mail_id }`. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	await requireSandbox.call(this, 'Seed Mail Item (Sandbox)', i);
	const body: IDataObject = {
		mail_type: checkOneOf.call(
			this,
			this.getNodeParameter('seedMailType', i),
			SEED_MAIL_TYPES,
			'Mail Type',
			i,
		),
	};
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	const positive = (value: unknown, label: string): number => {
		if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
			throw new NodeOperationError(
				this.getNode(),
				`${label} must be a number above 0, got ${JSON.stringify(value)}`,
				{ itemIndex: i },
			);
		}
		return value;
	};
	if (fields.senderName !== undefined && fields.senderName !== '')
		body.sender_name = String(fields.senderName);
	if (fields.weight !== undefined) body.weight = positive(fields.weight, 'Weight');
	const given = DIMENSIONS.filter(([name]) => fields[name] !== undefined);
	if (given.length > 0) {
		if (given.length < DIMENSIONS.length) {
			throw new NodeOperationError(this.getNode(), 'Width, Height and Length go together', {
				itemIndex: i,
				description: `Add ${DIMENSIONS.filter(([name]) => fields[name] === undefined)
					.map(([, label]) => label)
					.join(' and ')} too, or remove ${given.map(([, label]) => label).join(' and ')}.`,
			});
		}
		body.measurement = Object.fromEntries(
			DIMENSIONS.map(([name, label]) => [name, positive(fields[name], label)]),
		);
	}
	// Not idempotent: the transport never retries it unless the server answered 429.
	return await apiRequest.call(this, 'POST', '/v1/sandbox/seed/mail', { body, itemIndex: i });
}
