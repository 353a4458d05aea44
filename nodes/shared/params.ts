import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export type IdKind = 'numeric' | 'text';

/** Options from API values: `large_letter` → "Large letter". */
export function optionsOf(values: readonly string[]): Array<{ name: string; value: string }> {
	return values.map((value) => ({ name: value.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase()), value }));
}

/**
 * Read an id parameter that may be a resource locator ({ mode, value }) or, in older or
 * hand-written workflows, a plain string; check it before any request is made.
 */
export function getId(this: IExecuteFunctions, name: string, itemIndex: number, label: string, kind: IdKind): string {
	const raw = this.getNodeParameter(name, itemIndex, '') as unknown;
	const value = raw && typeof raw === 'object' ? (raw as IDataObject).value : raw;
	return checkId.call(this, value, label, kind, itemIndex);
}

export function checkId(this: IExecuteFunctions, value: unknown, label: string, kind: IdKind, itemIndex: number): string {
	const id = value === undefined || value === null ? '' : String(value).trim();
	if (id === '') {
		throw new NodeOperationError(this.getNode(), `${label} is empty`, {
			itemIndex,
			description: `Set "${label}"${kind === 'numeric' ? ' to a numeric ID such as 12345' : ''}.`,
		});
	}
	if (kind === 'numeric' && !/^\d+$/.test(id)) {
		throw new NodeOperationError(this.getNode(), `${label} must be a numeric string such as "12345", got "${id}"`, { itemIndex });
	}
	return id;
}

export function requireText(this: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	const value = String(this.getNodeParameter(name, itemIndex, '') ?? '').trim();
	if (value === '') {
		throw new NodeOperationError(this.getNode(), `${label} is required`, { itemIndex, description: `Set "${label}".` });
	}
	return value;
}

export function checkColor(this: IExecuteFunctions, value: unknown, itemIndex: number): string {
	const color = String(value ?? '').trim();
	if (!/^#[0-9a-fA-F]{6}$/.test(color)) {
		throw new NodeOperationError(this.getNode(), `Color must have the form #RRGGBB (for example #1A73E8), got "${color}"`, { itemIndex });
	}
	return color;
}

export function checkOneOf<T extends string>(
	this: IExecuteFunctions,
	value: unknown,
	allowed: readonly T[],
	label: string,
	itemIndex: number,
): T {
	if (!allowed.includes(value as T)) {
		throw new NodeOperationError(this.getNode(), `${label} must be one of ${allowed.join(', ')}; got "${String(value)}"`, { itemIndex });
	}
	return value as T;
}

/** Return All + Limit, with the wording and defaults n8n's lint expects. */
export function returnAllAndLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

export function readReturnAll(this: IExecuteFunctions, itemIndex: number): { returnAll: boolean; limit: number } {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? 0 : (this.getNodeParameter('limit', itemIndex, 50) as number);
	if (!returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(this.getNode(), `Limit must be a whole number of at least 1, got ${limit}`, { itemIndex });
	}
	return { returnAll, limit };
}

/** Resource locator for a folder: from a searchable list or by ID. */
export function folderLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Folder',
		name: 'folderId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchFolders', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: '12',
				validation: [{ type: 'regex', properties: { regex: '^\\d+$', errorMessage: 'A folder ID is a number' } }],
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'Bills',
			},
		],
		...overrides,
	} as INodeProperties;
}
