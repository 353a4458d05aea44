import type { IExecuteFunctions, INodeExecutionData, INodeProperties, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, type DownloadedFile, downloadFile, segment } from './transport';

type FileContext = IWebhookFunctions | IPollFunctions | IExecuteFunctions;

/** The triggers' "Download File" option; `description` says which file this trigger fetches. */
export function downloadFileOption(description: string): INodeProperties {
	return { displayName: 'Download File', name: 'downloadFile', type: 'boolean', default: false, description };
}

/** The triggers' "Put Output File in Field" option, shown once Download File is on. */
export const outputFieldOption: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	description: 'Name of the binary field to put the downloaded file in',
	displayOptions: { show: { downloadFile: [true] } },
};

/**
 * A scan's file: GET /v1/scans/{id}/file gives a short-lived signed link, fetched at once; the
 * link itself is never output.
 */
export async function downloadScanFile(
	this: FileContext,
	scanId: string,
	fallbackName = `scan-${scanId}.pdf`,
	itemIndex?: number,
): Promise<DownloadedFile> {
	const link = await apiRequest.call(this, 'GET', `/v1/scans/${segment(scanId)}/file`, { itemIndex });
	if (typeof link.url !== 'string') {
		throw new NodeOperationError(this.getNode(), `GET /v1/scans/${scanId}/file returned no link`, { itemIndex });
	}
	return await downloadFile.call(this, link.url, fallbackName, itemIndex);
}

/**
 * Put a downloaded file into `item.binary[property]`. A failure is written into the item as
 * `download_error` instead of losing the item: triggers must not drop events.
 */
export async function attachFile(
	this: FileContext,
	item: INodeExecutionData,
	property: string,
	download: () => Promise<DownloadedFile>,
): Promise<void> {
	try {
		const file = await download();
		item.binary = { ...(item.binary ?? {}), [property]: await this.helpers.prepareBinaryData(file.data, file.fileName, file.contentType) };
	} catch (error) {
		item.json.download_error = (error as Error).message;
	}
}

/** attachFile for a pre-signed link from a payload or a mail item (`missing`: the error when there is none). */
export async function attachLink(
	this: FileContext,
	item: INodeExecutionData,
	url: unknown,
	fallbackName: string,
	property: string,
	missing = 'No file link to download',
): Promise<void> {
	if (typeof url !== 'string' || url === '') {
		item.json.download_error = missing;
		return;
	}
	await attachFile.call(this, item, property, async () => await downloadFile.call(this, url, fallbackName));
}
