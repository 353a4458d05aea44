import { byIdOperation } from '../../../shared/byId';
import { mailIdField } from './Mail.fields';

export const { description, execute } = byIdOperation({
	resource: 'mail',
	operation: 'archive',
	field: mailIdField,
	label: 'Mail ID',
	kind: 'numeric',
	method: 'POST',
	path: (id) => `/v1/mails/${id}/archive`,
});
