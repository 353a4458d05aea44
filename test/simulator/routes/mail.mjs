// Mail items: the filtered, paginated list, one item, and the moves (file, read, archive, discard).
import { paginate } from '../paging.mjs';
import { queryMails } from '../mail-query.mjs';
import { fail } from '../problems.mjs';

/** Keyset cursors for the mail list: the order key is (arrival_date, numeric id), as queryMails sorts. */
const mailKeyset = (params) => {
	const direction = params.get('sort') === 'oldest' ? 1 : -1;
	const keyOf = (m) => [Date.parse(m.arrival_date), Number(m.id)];
	return { keyOf, after: (key, other) => direction * (key[0] - other[0] || key[1] - other[1]) > 0 };
};

export default function mailRoutes(route, { mailbox }) {
	route('GET', '/v1/mails', ({ params }) => {
		const key = `${mailbox.version}|${params.toString().replace(/&?(cursor|limit)=[^&]*/g, '')}`;
		let list = mailbox.queryCache.get(key);
		if (!list) {
			list = queryMails(mailbox.db.mails, params);
			mailbox.queryCache.set(key, list);
		}
		const page = paginate(
			'/v1/mails',
			params,
			list,
			mailbox.cursorMode === 'keyset' ? mailKeyset(params) : undefined,
		);
		return { ...page, data: page.data.map((m) => mailbox.mailEntry(m)) };
	});
	route('GET', '/v1/mails/{id}', ({ id }) => mailbox.mailDetail(mailbox.mailById(id)));
	route('PATCH', '/v1/mails/{id}', ({ id, body }) => {
		const mail = mailbox.mailById(id);
		if (body.is_read !== undefined && typeof body.is_read !== 'boolean')
			throw fail(422, 'is_read must be a boolean', [
				{ field: 'is_read', message: 'must be a boolean' },
			]);
		if (body.folder_id !== undefined && body.folder_id !== null) {
			if (!mailbox.db.folders.some((f) => f.id === String(body.folder_id)))
				throw fail(422, `No folder ${body.folder_id}`, [
					{ field: 'folder_id', message: 'unknown folder' },
				]);
		}
		if (body.is_read !== undefined) mail.is_read = body.is_read;
		if (body.folder_id !== undefined)
			mail.folder_id = body.folder_id === null ? null : String(body.folder_id);
		mailbox.changed();
		return mailbox.mailDetail(mail);
	});
	const moveMail =
		(to, allowedFrom) =>
		({ id }) => {
			const mail = mailbox.mailById(id);
			if (!allowedFrom(mail)) throw fail(409, `Mail item ${id} is ${mail.mail_status}`);
			mail.previous_status = to === 'inbox' ? null : mail.mail_status;
			mail.mail_status = to === 'inbox' ? 'inbox' : to;
			mailbox.changed();
			return mailbox.mailDetail(mail);
		};
	route(
		'POST',
		'/v1/mails/{id}/undiscard',
		moveMail('inbox', (m) => m.mail_status === 'discard_request'),
	);
	route(
		'POST',
		'/v1/mails/{id}/archive',
		moveMail('archived', (m) => m.mail_status === 'inbox'),
	);
	route(
		'POST',
		'/v1/mails/{id}/unarchive',
		moveMail('inbox', (m) => m.mail_status === 'archived'),
	);
	route(
		'POST',
		'/v1/mails/{id}/discard',
		moveMail('discard_request', (m) => m.mail_status === 'inbox' || m.mail_status === 'archived'),
	);
}
