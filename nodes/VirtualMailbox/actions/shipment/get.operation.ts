import { byIdOperation } from '../../../shared/byId';
import { shipmentIdField } from './Shipment.fields';

export const { description, execute } = byIdOperation({
	resource: 'shipment',
	operation: 'get',
	field: shipmentIdField,
	label: 'Shipment ID',
	kind: 'text',
	method: 'GET',
	path: (id) => `/v1/shipments/${id}`,
});
