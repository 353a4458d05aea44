import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getId } from '../../../shared/params';
import { apiRequest, downloadFile, segment } from '../../../shared/transport';
import { Items } from '../items';
import { scanIdField } from './Scan.fields';
import { forOperation } from '../../../shared/display';

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
]);

/** GET /v1/scans/{id}/file gives a short-lived signed link: fetch it at once, never output the link. */
export async function execute(this: IExecuteFunctions, i: number): Promise<Items> {
	const id = getId.call(this, 'scanId', i, 'Scan ID', 'text');
	const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
	if (property === '') throw new NodeOperationError(this.getNode(), 'Put Output File in Field is empty', { itemIndex: i });
	const link = await apiRequest.call(this, 'GET', `/v1/scans/${segment(id)}/file`, { itemIndex: i });
	if (typeof link?.url !== 'string') {
		throw new NodeOperationError(this.getNode(), `GET /v1/scans/${id}/file returned no link`, { itemIndex: i });
	}
	const file = await downloadFile.call(this, link.url, `scan-${id}.pdf`, i);
	const binary = await this.helpers.prepareBinaryData(file.data, file.fileName, file.contentType);
	return new Items([{ json: { scan_id: id, file_name: file.fileName, mime_type: file.contentType, size: file.data.length }, binary: { [property]: binary } }]);
}
