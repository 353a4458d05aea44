import { byIdOperation } from '../../../shared/byId';
import { addressIdField } from './Address.fields';

// PATCH /v1/addresses/{id}/default (beyond the published spec), no body: the address becomes the
// default of its type and the previous default stops being one.
export const { description, execute } = byIdOperation({
	resource: 'address',
	operation: 'setDefault',
	field: addressIdField,
	label: 'Address ID',
	kind: 'text',
	method: 'PATCH',
	path: (id) => `/v1/addresses/${id}/default`,
});
