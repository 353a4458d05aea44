import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, segment } from '../../../shared/transport';
import { scanIdField } from './Scan.fields';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['scan'], operation: ['cancel'] } },
	[scanIdField],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'scanId', i, 'Scan ID', 'text');
	return await apiRequest.call(this, 'POST', `/v1/scans/${segment(id)}/cancel`, { itemIndex: i });
}
