import type { IDataObject } from 'n8n-workflow';

/**
 * Holds: each node execution's view of the folder list, read once and grown by the folders it
 * creates, so 40 items filed into one folder by name cost one list. Bound: one entry per execution
 * in progress (a WeakMap on its context); the next execution reads again and sees any rename.
 * Several processes: not shared; two that create the same name each file into the oldest and
 * remove their own (folders.ts keepOldest). See docs/seams.md.
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
