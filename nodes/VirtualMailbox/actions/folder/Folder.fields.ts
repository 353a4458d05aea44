import type { INodeProperties } from 'n8n-workflow';

export const colorField: INodeProperties = {
	displayName: 'Color',
	name: 'color',
	type: 'color',
	default: '#1A73E8',
	description: 'Folder color as #RRGGBB',
};
