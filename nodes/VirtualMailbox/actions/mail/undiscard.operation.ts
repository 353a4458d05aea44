import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, segment } from '../../../shared/transport';
import { mailIdField } from './Mail.fields';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['mail'], operation: ['undiscard'] } },
	[mailIdField],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'mailId', i, 'Mail ID', 'numeric');
	return await apiRequest.call(this, 'POST', `/v1/mails/${segment(id)}/undiscard`, { itemIndex: i });
}
