import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, segment } from '../../../shared/transport';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['shipment'], operation: ['get'] } }, [
	{
		displayName: 'Shipment ID',
		name: 'shipmentId',
		type: 'string',
		required: true,
		default: '',
		description: 'UUID of the shipment (the ID of a shipment-update event)',
	},
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = getId.call(this, 'shipmentId', i, 'Shipment ID', 'text');
	return await apiRequest.call(this, 'GET', `/v1/shipments/${segment(id)}`, { itemIndex: i });
}
