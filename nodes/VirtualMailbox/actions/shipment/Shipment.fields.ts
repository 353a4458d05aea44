import type { INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../../shared/descriptions';

export const shipmentIdField: INodeProperties = idLocator({
	displayName: 'Shipment ID',
	name: 'shipmentId',
	searchListMethod: 'searchShipments',
	placeholder: '4b28d1f9-e695-45b4-8dbf-e6841b5ce17d',
	description:
		'The shipment, return, check deposit or pickup: pick one from ' +
		'the list or give its UUID, the ID of a shipment-update event',
});
