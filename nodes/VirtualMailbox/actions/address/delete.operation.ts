import { byIdOperation, deleted } from '../../../shared/byId';
import { addressIdField } from './Address.fields';

export const { description, execute } = byIdOperation({
	resource: 'address',
	operation: 'delete',
	field: addressIdField,
	label: 'Address ID',
	kind: 'text',
	method: 'DELETE',
	path: (id) => `/v1/addresses/${id}`,
	empty: deleted,
});
