import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { folderViews } from './state/folderViews';
import { apiRequest, segment } from './transport';
import { checkId, locatorValue } from './validate';

export interface FolderChoice {
	mode?: string;
	value?: unknown;
}

/**
 * Decides how a name is looked up: `rename` and `delete` read a fresh list (an earlier item may
 * have renamed a folder), the others the execution's view; `delete` takes the exact name only.
 */
export type FolderUse = 'file' | 'filter' | 'read' | 'rename' | 'delete';

export interface FolderOptions {
	use?: FolderUse;
	/** With `file`: create a missing folder. */
	createIfMissing?: boolean;
	/** With `file`: a missing folder's error points to "Create Folder If Missing". */
	createOption?: boolean;
}

/**
 * A folder parameter → folder ID. By name: the exact name, else one that differs only in letter
 * case; a name several folders share gives the oldest, the same every time.
 */
export async function resolveFolderId(
	this: IExecuteFunctions,
	choice: FolderChoice | string | undefined,
	itemIndex: number,
	options: FolderOptions = {},
): Promise<string> {
	const mode = choice && typeof choice === 'object' ? choice.mode : 'id';
	const value = locatorValue(choice);
	if (mode !== 'name') return checkId.call(this, value, 'Folder', 'numeric', itemIndex);
	const found = await folderByName.call(this, String(value ?? ''), itemIndex, options);
	return found.id as string;
}

/**
 * `{ id: undefined, created }` when `preview` would create it: the execution's view then holds it,
 * so later items see it as already there.
 */
export async function folderByName(
	this: IExecuteFunctions,
	rawName: string,
	itemIndex: number,
	{
		use = 'read',
		createIfMissing = false,
		createOption = false,
		preview = false,
	}: FolderOptions & { preview?: boolean } = {},
): Promise<{ id: string | undefined; created?: boolean; name?: string }> {
	const name = rawName.trim();
	if (name === '')
		throw new NodeOperationError(this.getNode(), 'Folder name is empty', { itemIndex });
	const destructive = use === 'delete';
	const find = (folders: IDataObject[]): IDataObject | undefined => {
		const matches = foldersNamed(folders, name, { exact: destructive });
		if (destructive && matches.length > 1) {
			throw new NodeOperationError(
				this.getNode(),
				`${matches.length} folders are named "${name}"`,
				{
					itemIndex,
					description:
						`Folders ${matches.map((f) => `"${String(f.name)}" (ID ${String(f.id)})`).join(', ')} ` +
						'all match. Choose the folder to delete by ID.',
				},
			);
		}
		return matches[0];
	};
	const hint = {
		file: createOption
			? ' Turn on "Create Folder If Missing" to create it.'
			: ' Check the name, or pick the folder from the list.',
		filter: ' Check the name, or pick the folder from the list.',
		read: ' Check the name, or pick the folder from the list.',
		rename: ' Check the name, or pick the folder from the list.',
		delete: ' Deleting by name needs the exact name.',
	}[use];
	const notFound = (folders: IDataObject[]) =>
		new NodeOperationError(this.getNode(), `No folder is named "${name}"`, {
			itemIndex,
			description:
				'Existing folders: ' + `${folders.map((f) => String(f.name)).join(', ') || 'none'}.${hint}`,
		});
	// A change by name reads the list as it is now; everything else reads this execution's view.
	const folders =
		use === 'rename' || use === 'delete'
			? await listAllFolders.call(this, itemIndex)
			: await executionFolders.call(this, itemIndex);
	// A folder an earlier preview item of this run would create (no ID) exists for the later
	// preview items only: a real item creates it (Preview Only may differ per item).
	const placeholder = (f: IDataObject) => f.id === undefined;
	const match = find(preview ? folders : folders.filter((f) => !placeholder(f)));
	if (match)
		return {
			id: match.id === undefined ? undefined : String(match.id),
			name: String(match.name ?? name),
		};
	if (use !== 'file' || !createIfMissing) throw notFound(folders.filter((f) => !placeholder(f)));
	if (preview) {
		// The run would create it once: the later items of this preview find it (with no ID yet).
		folders.push({ id: undefined, name });
		return { id: undefined, created: true, name };
	}
	for (const twin of foldersNamed(folders.filter(placeholder), name))
		folders.splice(folders.indexOf(twin), 1);
	const folder = await apiRequest.call(this, 'POST', '/v1/folders', { body: { name }, itemIndex });
	const ours = String(folder.id);
	// Recorded at once: should the look for a twin fail, later items file into it, not another.
	const entry: IDataObject = { ...folder, id: ours, name };
	folders.push(entry);
	const kept = await keepOldest.call(
		this,
		ours,
		(list) => find(list)?.id as string | undefined,
		itemIndex,
	);
	if (kept !== ours) {
		folders.splice(folders.indexOf(entry), 1);
		if (!folders.some((f) => String(f.id) === kept)) folders.push({ id: kept, name });
	}
	return { id: kept, created: kept === ours, name };
}

/** This execution's folder list: read once, shared by all its items (state/folderViews.ts). */
export async function executionFolders(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject[]> {
	const known = folderViews.get(this);
	if (known) return await known;
	const folders = listAllFolders.call(this, itemIndex);
	folderViews.set(this, folders);
	folders.catch(() => folderViews.drop(this, folders));
	return await folders;
}

/**
 * Another process may have created the same name at the same moment (the API allows it). Every
 * creator looks again and files into the oldest, which a later creator always sees; a creator
 * whose folder is not the oldest removes its own, still empty.
 */
async function keepOldest(
	this: IExecuteFunctions,
	ours: string,
	find: (folders: IDataObject[]) => string | undefined,
	itemIndex: number,
): Promise<string> {
	const found = find(await listAllFolders.call(this, itemIndex));
	const oldest = found === undefined ? ours : String(found);
	if (oldest !== ours) {
		try {
			await apiRequest.call(this, 'DELETE', `/v1/folders/${segment(ours)}`, { itemIndex });
		} catch (error) {
			this.logger.warn(
				`Virtual Mailbox: folder ${ours} was created twice at the same ` +
					`moment and could not be removed: ${(error as Error).message}`,
			);
		}
	}
	return oldest;
}

export async function listAllFolders(
	this: IExecuteFunctions | ILoadOptionsFunctions,
	itemIndex?: number,
): Promise<IDataObject[]> {
	// The provider's `{ data }` or a bare list (unwrapFolderList).
	const body = await apiRequest.call(this, 'GET', '/v1/folders', { itemIndex, allowList: true });
	const folders = unwrapFolderList(body);
	if (!folders) {
		throw new NodeOperationError(
			this.getNode(),
			'Unexpected response from GET /v1/folders: no list of folders',
			{ itemIndex },
		);
	}
	return folders;
}

/**
 * Pure: the folders named `name`: the exact matches, else (unless `exact`) the matches ignoring
 * letter case and surrounding spaces; oldest (lowest ID) first.
 */
export function foldersNamed(
	folders: IDataObject[],
	name: string,
	{ exact = false } = {},
): IDataObject[] {
	const wanted = name.trim();
	const exactMatches = folders.filter((f) => String(f.name ?? '') === wanted);
	const matches =
		exactMatches.length > 0 || exact
			? exactMatches
			: folders.filter(
					(f) =>
						String(f.name ?? '')
							.trim()
							.toLowerCase() === wanted.toLowerCase(),
				);
	return matches.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Pure: the SDK declares `{ data }`; a bare array or another single list key is read too. */
export function unwrapFolderList(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (!body || typeof body !== 'object') return undefined;
	const record = body as IDataObject;
	for (const key of ['data', 'folders', 'items', 'results']) {
		if (Array.isArray(record[key])) return record[key] as IDataObject[];
	}
	const arrays = Object.values(record).filter(Array.isArray);
	return arrays.length === 1 ? (arrays[0] as IDataObject[]) : undefined;
}
