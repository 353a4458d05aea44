import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { folderCreations } from './state/folderCreations';
import { apiRequest, baseUrlOf, getApiCredentials } from './transport';
import { checkId, locatorValue } from './validate';

export interface FolderChoice {
	mode?: string;
	value?: unknown;
}

/**
 * A folder parameter (resource locator by list, ID or name; or a plain ID string) → folder ID.
 * By name, the folder is looked up (case-insensitive, exact); with `createIfMissing` it is created.
 */
export async function resolveFolderId(
	this: IExecuteFunctions,
	choice: FolderChoice | string | undefined,
	itemIndex: number,
	{ createIfMissing = false } = {},
): Promise<string> {
	const mode = choice && typeof choice === 'object' ? choice.mode : 'id';
	const value = locatorValue(choice);
	if (mode !== 'name') return checkId.call(this, value, 'Folder', 'numeric', itemIndex);
	const name = String(value ?? '').trim();
	if (name === '') throw new NodeOperationError(this.getNode(), 'Folder name is empty', { itemIndex });

	const credentials = await getApiCredentials.call(this);
	const account = createHash('sha256').update(`${baseUrlOf(credentials)}|${credentials.apiKey ?? ''}`).digest('hex');
	const key = `${account}|${name.toLowerCase()}`;
	const pending = folderCreations.get(key, Date.now());
	if (pending) return await pending;

	// Registered before the first await, so concurrent items share one lookup and one creation.
	let created = false;
	const id = (async () => {
		const folders = await listAllFolders.call(this, itemIndex);
		const found = pickByName(folders, name);
		if (found) return found;
		if (!createIfMissing) {
			throw new NodeOperationError(this.getNode(), `No folder is named "${name}"`, {
				itemIndex,
				description: `Existing folders: ${folders.map((f) => String(f.name)).join(', ') || 'none'}. Turn on "Create Folder If Missing" to create it.`,
			});
		}
		const folder = await apiRequest.call(this, 'POST', '/v1/folders', { body: { name }, itemIndex });
		created = true;
		return String(folder.id);
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

export async function listAllFolders(this: IExecuteFunctions | ILoadOptionsFunctions, itemIndex?: number): Promise<IDataObject[]> {
	const body = await apiRequest.call(this, 'GET', '/v1/folders', { itemIndex });
	const folders = unwrapFolderList(body);
	if (!folders) {
		throw new NodeOperationError(this.getNode(), 'Unexpected response from GET /v1/folders: no list of folders', { itemIndex });
	}
	return folders;
}

/** Pure: the folder with this name (case-insensitive); the oldest (lowest ID) if several. */
export function pickByName(folders: IDataObject[], name: string): string | undefined {
	const wanted = name.trim().toLowerCase();
	const matches = folders.filter((f) => String(f.name ?? '').trim().toLowerCase() === wanted);
	matches.sort((a, b) => Number(a.id) - Number(b.id));
	return matches.length ? String(matches[0].id) : undefined;
}

/** Pure: GET /v1/folders answers with a bare array or an object holding it (the provider's SDK shows both). */
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
