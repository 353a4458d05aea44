import { byIdOperation } from '../../../shared/byId';
import { mailIdField } from './Mail.fields';

export const { description, execute } = byIdOperation({
	resource: 'mail',
	operation: 'discard',
	field: mailIdField,
	notice:
		'Destructive: the mail item is shredded 7 days after this request, ' +
		'and then cannot be recovered. Until then Undiscard keeps it.',
	label: 'Mail ID',
	kind: 'numeric',
	method: 'POST',
	path: (id) => `/v1/mails/${id}/discard`,
});
