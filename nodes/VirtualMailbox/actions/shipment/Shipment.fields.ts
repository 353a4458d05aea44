import type { INodeProperties } from 'n8n-workflow';

export const shipmentIdField: INodeProperties = {
	displayName: 'Shipment ID',
	name: 'shipmentId',
	type: 'string',
	required: true,
	default: '',
	description: 'UUID of the shipment (the ID of a shipment-update event)',
};
