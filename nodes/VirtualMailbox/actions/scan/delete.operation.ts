import { byIdOperation, deleted } from '../../../shared/byId';
import { scanIdField } from './Scan.fields';

export const { description, execute } = byIdOperation({
	resource: 'scan',
	operation: 'delete',
	field: scanIdField,
	notice:
		'Destructive: the stored scan file is deleted for good and cannot be ' +
		'recovered. Download it first (Scan → Download) if you may need it.',
	label: 'Scan ID',
	kind: 'text',
	method: 'DELETE',
	path: (id) => `/v1/scans/${id}`,
	empty: deleted,
});
