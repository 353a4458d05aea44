import { byIdOperation } from '../../../shared/byId';
import { scanIdField } from './Scan.fields';

export const { description, execute } = byIdOperation({
	resource: 'scan',
	operation: 'get',
	field: scanIdField,
	label: 'Scan ID',
	kind: 'text',
	method: 'GET',
	path: (id) => `/v1/scans/${id}`,
});
