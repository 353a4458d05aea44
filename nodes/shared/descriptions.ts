import type { INodeProperties } from 'n8n-workflow';

// Builders of parameter declarations shared by several operations or nodes. The linter reads the
// literal declarations inside them (options sorted, lint-approved wording).

/** Options from API values: `large_letter` → "Large letter". */
export function optionsOf(values: readonly string[]): Array<{ name: string; value: string }> {
	return values.map((value) => ({
		name: value.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase()),
		value,
	}));
}

/** The periods of the `arrived` (mail) and `scanned` (scans) list filters. */
export const PERIOD_OPTIONS = [
	{ name: 'Past Week', value: 'week' },
	{ name: 'Past Month', value: 'month' },
	{ name: 'Past Half Year', value: 'half_year' },
	{ name: 'Past Year', value: 'year' },
];

export const SORT_FILTER: INodeProperties = {
	displayName: 'Sort',
	name: 'sort',
	type: 'options',
	default: 'newest',
	options: [
		{ name: 'Newest First', value: 'newest' },
		{ name: 'Oldest First', value: 'oldest' },
	],
};

export function filtersCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options,
	};
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

/** Confirm List Unchanged, then the operation's own options (sorted by name). */
export function returnAllOptions(options: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { returnAll: [true] } },
		options: [
			{
				displayName: 'Confirm List Unchanged',
				name: 'confirmListUnchanged',
				type: 'boolean',
				default: false,
				description:
					'Whether to read the list a second time and return it only when both ' +
					'reads give the same items in the same order. Catches an item missed ' +
					'or repeated because the list changed while it was read. Costs about ' +
					'twice the requests and time, and fails when the list keeps changing.',
			},
			...options,
		],
	};
}

/**
 * `idPattern` lets the editor flag a malformed ID; the operation checks it again at run time
 * (getId), also when a saved workflow holds a plain string instead of a locator.
 */
export function idLocator(spec: {
	displayName: string;
	name: string;
	searchListMethod: string;
	placeholder: string;
	description: string;
	idPattern?: { regex: string; errorMessage: string };
}): INodeProperties {
	return {
		displayName: spec.displayName,
		name: spec.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: spec.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: spec.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: spec.placeholder,
				...(spec.idPattern ? { validation: [{ type: 'regex', properties: spec.idPattern }] } : {}),
			},
		],
	} as INodeProperties;
}

/** Resource locator for a folder: from a searchable list, by ID or by name. */
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
				validation: [
					{
						type: 'regex',
						properties: { regex: '^\\d+$', errorMessage: 'A folder ID is a number' },
					},
				],
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
