import { byIdOperation } from '../../../shared/byId';
import { scanIdField } from './Scan.fields';

export const { description, execute } = byIdOperation({
	resource: 'scan',
	operation: 'cancel',
	field: scanIdField,
	label: 'Scan ID',
	kind: 'text',
	method: 'POST',
	path: (id) => `/v1/scans/${id}/cancel`,
});
