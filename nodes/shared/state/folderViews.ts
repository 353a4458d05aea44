import type { IDataObject } from 'n8n-workflow';

/**
 * Holds: for each node execution in progress (its context object), that execution's view of the
 * folder list: read once, when the first item names a folder, plus the folders the execution
 * created since. Every item of the execution reads it, so 40 items filed into one folder by name
 * cost one list. Nothing outlives the execution: the next one asks the API again, so a folder
 * deleted or renamed in the meantime is seen at once. (A node execution has one credential, so
 * one account.)
 * Bound: one entry per execution in progress, freed with its context (a WeakMap).
 * Several processes: not shared, and nothing to share. Executions (in this process or another)
 * that create the same new name at the same moment each create a folder, then look again and file
 * into the oldest; the others remove their own (folders.ts keepOldest).
 */
const views = new WeakMap<object, Promise<IDataObject[]>>();

export const folderViews = {
	get(execution: object): Promise<IDataObject[]> | undefined {
		return views.get(execution);
	},
	set(execution: object, folders: Promise<IDataObject[]>): void {
		views.set(execution, folders);
	},
	/** Forget a view whose read failed, so that the next item asks the API again. */
	drop(execution: object, folders: Promise<IDataObject[]>): void {
		if (views.get(execution) === folders) views.delete(execution);
	},
};
