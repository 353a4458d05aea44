import { byIdOperation } from '../../../shared/byId';
import { mailIdField } from './Mail.fields';

export const { description, execute } = byIdOperation({
	resource: 'mail',
	operation: 'get',
	field: mailIdField,
	label: 'Mail ID',
	kind: 'numeric',
	method: 'GET',
	path: (id) => `/v1/mails/${id}`,
});
