import type { INodeProperties } from 'n8n-workflow';

export const scanIdField: INodeProperties = {
	displayName: 'Scan ID',
	name: 'scanId',
	type: 'string',
	required: true,
	default: '',
	placeholder: '3f1c2b9e-8a4d-4c1e-9f55-2b7c1d0e6a90',
	description: 'UUID of the scan request (a mail item\'s scan.uuid, or the uuid of a scan-update event)',
};
