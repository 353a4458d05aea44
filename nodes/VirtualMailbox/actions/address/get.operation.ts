import { byIdOperation } from '../../../shared/byId';
import { addressIdField } from './Address.fields';

export const { description, execute } = byIdOperation({
	resource: 'address',
	operation: 'get',
	field: addressIdField,
	label: 'Address ID',
	kind: 'text',
	method: 'GET',
	path: (id) => `/v1/addresses/${id}`,
});
