import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { forOperation } from '../../../shared/display';
import { downloadScanFile, maxBytesOf, maxFileSizeOption } from '../../../shared/files';
import { getId } from '../../../shared/validate';
import { Items } from '../items';
import { scanIdField } from './Scan.fields';

export const description: INodeProperties[] = forOperation('scan', 'download', [
	scanIdField,
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description: 'Name of the binary field to put the scan file in',
	},
	maxFileSizeOption(),
]);

export async function execute(this: IExecuteFunctions, i: number): Promise<Items> {
	const id = getId.call(this, 'scanId', i, 'Scan ID', 'text');
	const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
	if (property === '')
		throw new NodeOperationError(this.getNode(), 'Put Output File in Field is empty', {
			itemIndex: i,
		});
	const maxBytes = maxBytesOf({
		maxFileSizeMb: this.getNodeParameter('maxFileSizeMb', i, undefined),
	});
	const file = await downloadScanFile.call(this, id, { itemIndex: i, maxBytes });
	const binary = await this.helpers.prepareBinaryData(file.data, file.fileName, file.contentType);
	return new Items([
		{
			json: {
				scan_id: id,
				file_name: file.fileName,
				mime_type: file.contentType,
				size: file.data.length,
			},
			binary: { [property]: binary },
		},
	]);
}
