import { byIdOperation, deleted } from '../../../shared/byId';
import { scanIdField } from './Scan.fields';

export const { description, execute } = byIdOperation({
	resource: 'scan',
	operation: 'delete',
	field: scanIdField,
	label: 'Scan ID',
	kind: 'text',
	method: 'DELETE',
	path: (id) => `/v1/scans/${id}`,
	empty: deleted,
});
