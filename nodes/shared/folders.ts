import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { folderCreations } from './state/folderCreations';
import { apiRequest, baseUrlOf, getApiCredentials, segment } from './transport';
import { checkId, locatorValue } from './validate';

export interface FolderChoice {
	mode?: string;
	value?: unknown;
}

/**
 * A folder parameter (resource locator by list, ID or name; or a plain ID string) → folder ID.
 * By name, the folder is looked up: the exact name, else a name that differs only in letter case.
 * With `createIfMissing` a missing one is created. `destructive` (delete) accepts only the exact
 * name, refuses a name several folders share, and always asks the API, never the folders this
 * process created a moment ago (one may have been renamed since).
 */
export async function resolveFolderId(
	this: IExecuteFunctions,
	choice: FolderChoice | string | undefined,
	itemIndex: number,
	{ createIfMissing = false, destructive = false } = {},
): Promise<string> {
	const mode = choice && typeof choice === 'object' ? choice.mode : 'id';
	const value = locatorValue(choice);
	if (mode !== 'name') return checkId.call(this, value, 'Folder', 'numeric', itemIndex);
	const name = String(value ?? '').trim();
	if (name === '') throw new NodeOperationError(this.getNode(), 'Folder name is empty', { itemIndex });
	// Filing into a name that several folders share takes the oldest, the same every time (queue
	// mode can create a name twice); deleting one of them by name is refused, never guessed.
	const find = (folders: IDataObject[]): string | undefined => {
		const matches = foldersNamed(folders, name, { exact: destructive });
		if (destructive && matches.length > 1) {
			throw new NodeOperationError(this.getNode(), `${matches.length} folders are named "${name}"`, {
				itemIndex,
				description: `Folders ${matches.map((f) => `"${String(f.name)}" (ID ${String(f.id)})`).join(', ')} all match. Choose the folder to delete by ID.`,
			});
		}
		return matches.length > 0 ? String(matches[0].id) : undefined;
	};
	const notFound = (folders: IDataObject[]) =>
		new NodeOperationError(this.getNode(), `No folder is named "${name}"`, {
			itemIndex,
			description: `Existing folders: ${folders.map((f) => String(f.name)).join(', ') || 'none'}.${destructive ? ' Deleting by name needs the exact name.' : ' Turn on "Create Folder If Missing" to create it.'}`,
		});
	if (destructive) {
		const folders = await listAllFolders.call(this, itemIndex);
		const id = find(folders);
		if (!id) throw notFound(folders);
		return id;
	}

	const credentials = await getApiCredentials.call(this);
	const account = createHash('sha256').update(`${baseUrlOf(credentials)}|${credentials.apiKey ?? ''}`).digest('hex');
	const key = `${account}|${name.toLowerCase()}`;
	const pending = folderCreations.get(key, Date.now());
	if (pending) return await pending;

	// Registered before the first await, so concurrent items share one lookup and one creation.
	let created = false;
	const id = (async () => {
		const folders = await listAllFolders.call(this, itemIndex);
		const found = find(folders);
		if (found) return found;
		if (!createIfMissing) throw notFound(folders);
		const folder = await apiRequest.call(this, 'POST', '/v1/folders', { body: { name }, itemIndex });
		created = true;
		return await keepOldest.call(this, String(folder.id), find, itemIndex);
	})();
	folderCreations.set(key, id, Date.now());
	try {
		return await id;
	} catch (error) {
		throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
	} finally {
		// Only a folder made here is remembered; lookups of existing folders ask the API again next time.
		if (!created) folderCreations.release(key, id);
	}
}

/**
 * Another process (a second queue-mode worker) may have created the same name at the same moment;
 * the API allows that. Every creator looks again and files into the oldest folder of that name, the
 * same for all; a creator whose folder is not the oldest removes its own, still empty (everything
 * of this process awaits this lookup). The older folder's creator posted first, so a later creator
 * always sees it.
 */
async function keepOldest(this: IExecuteFunctions, ours: string, find: (folders: IDataObject[]) => string | undefined, itemIndex: number): Promise<string> {
	const oldest = find(await listAllFolders.call(this, itemIndex)) ?? ours;
	if (oldest !== ours) {
		try {
			await apiRequest.call(this, 'DELETE', `/v1/folders/${segment(ours)}`, { itemIndex });
		} catch (error) {
			this.logger.warn(`Virtual Mailbox: folder ${ours} was created twice at the same moment and could not be removed: ${(error as Error).message}`);
		}
	}
	return oldest;
}

export async function listAllFolders(this: IExecuteFunctions | ILoadOptionsFunctions, itemIndex?: number): Promise<IDataObject[]> {
	const body = await apiRequest.call(this, 'GET', '/v1/folders', { itemIndex });
	const folders = unwrapFolderList(body);
	if (!folders) {
		throw new NodeOperationError(this.getNode(), 'Unexpected response from GET /v1/folders: no list of folders', { itemIndex });
	}
	return folders;
}

/**
 * Pure: the folders named `name`: the exact matches, else (unless `exact`) the matches ignoring
 * letter case and surrounding spaces; oldest (lowest ID) first.
 */
export function foldersNamed(folders: IDataObject[], name: string, { exact = false } = {}): IDataObject[] {
	const wanted = name.trim();
	const exactMatches = folders.filter((f) => String(f.name ?? '') === wanted);
	const matches = exactMatches.length > 0 || exact ? exactMatches : folders.filter((f) => String(f.name ?? '').trim().toLowerCase() === wanted.toLowerCase());
	return matches.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Pure: the folders of a GET /v1/folders answer. The provider's SDK declares `{ data: [...] }`; a
 * bare array or another single list key is read too, so a variation of the answer does not break it.
 */
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
