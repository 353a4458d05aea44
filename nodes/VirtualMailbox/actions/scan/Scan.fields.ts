import type { INodeProperties } from 'n8n-workflow';

import { idLocator } from '../../../shared/descriptions';

export const scanIdField: INodeProperties = idLocator({
	displayName: 'Scan ID',
	name: 'scanId',
	searchListMethod: 'searchScans',
	placeholder: '3f1c2b9e-8a4d-4c1e-9f55-2b7c1d0e6a90',
	description:
		'The scan request: pick one of the newest (type a sender, label or mail ID to ' +
		"search) or give its UUID, a mail item's scan.uuid or the uuid of a scan-update event",
});
