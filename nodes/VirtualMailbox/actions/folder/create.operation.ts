import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkColor, requireText } from '../../../shared/validate';
import { apiRequest } from '../../../shared/transport';
import { colorField } from './Folder.fields';
import { forOperation } from '../../../shared/display';

export const description: INodeProperties[] = forOperation('folder', 'create', [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		description: 'Name of the new folder',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [colorField],
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const body: IDataObject = { name: requireText.call(this, 'name', i, 'Name') };
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	if (fields.color) body.color = checkColor.call(this, fields.color, i);
	return await apiRequest.call(this, 'POST', '/v1/folders', { body, itemIndex: i });
}
