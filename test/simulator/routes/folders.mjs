// Folders: the whole list in one answer (`{ data }`, no cursor: the SDK's FolderListDto), create, get, update, delete.
import { iso } from '../mailbox.mjs';
import { checkColor, optionalStrings, requireFields } from '../problems.mjs';

export default function folderRoutes(route, { mailbox }) {
	const db = () => mailbox.db;
	route('GET', '/v1/folders', () => ({ data: db().folders }));
	route('POST', '/v1/folders', ({ body }) => {
		requireFields(body, ['name']);
		checkColor(body.color);
		const folder = {
			id: String(Math.max(0, ...db().folders.map((f) => Number(f.id))) + 1),
			name: body.name,
			created_on: iso(),
			updated_on: iso(),
			color: body.color ?? null,
		};
		db().folders.push(folder);
		return [201, folder];
	});
	route('GET', '/v1/folders/{id}', ({ id }) => mailbox.find(db().folders, id, 'folder'));
	route('PATCH', '/v1/folders/{id}', ({ id, body }) => {
		const folder = mailbox.find(db().folders, id, 'folder');
		optionalStrings(body, ['name', 'color']);
		checkColor(body.color);
		if (body.name !== undefined) folder.name = body.name;
		if (body.color !== undefined) folder.color = body.color;
		folder.updated_on = iso();
		return folder;
	});
	route('DELETE', '/v1/folders/{id}', ({ id }) => {
		mailbox.find(db().folders, id, 'folder');
		db().folders = db().folders.filter((f) => f.id !== id);
		for (const mail of db().mails) if (mail.folder_id === id) mail.folder_id = null;
		mailbox.changed();
		return [204, undefined];
	});
}
