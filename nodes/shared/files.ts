import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	apiRequest,
	DEFAULT_MAX_FILE_MB,
	type DownloadedFile,
	downloadFile,
	segment,
} from './transport';

type FileContext = IWebhookFunctions | IPollFunctions | IExecuteFunctions;

/** The triggers' "Download File" option; `description` says which file this trigger fetches. */
export function downloadFileOption(description: string): INodeProperties {
	return {
		displayName: 'Download File',
		name: 'downloadFile',
		type: 'boolean',
		default: false,
		description,
	};
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

/** Larger files are not downloaded. `overrides` places it (display conditions). */
export function maxFileSizeOption(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Max File Size (MB)',
		name: 'maxFileSizeMb',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_MAX_FILE_MB,
		description:
			'Larger files are not downloaded, so that one huge file cannot ' +
			"exhaust n8n's memory; the item then says why in download_error",
		...overrides,
	};
}

/** The Max File Size option's value in bytes; the default when it is not a number of at least 1. */
export function maxBytesOf(options: IDataObject): number {
	const mb = options.maxFileSizeMb;
	return (
		(typeof mb === 'number' && Number.isFinite(mb) && mb >= 1 ? mb : DEFAULT_MAX_FILE_MB) *
		1024 *
		1024
	);
}

/** The signed link is short-lived: fetched at once, never output. */
export async function downloadScanFile(
	this: FileContext,
	scanId: string,
	{
		fallbackName = `scan-${scanId}.pdf`,
		itemIndex,
		maxBytes,
		signal,
	}: { fallbackName?: string; itemIndex?: number; maxBytes?: number; signal?: AbortSignal } = {},
): Promise<DownloadedFile> {
	const link = await apiRequest.call(this, 'GET', `/v1/scans/${segment(scanId)}/file`, {
		itemIndex,
		signal,
	});
	if (typeof link.url !== 'string') {
		throw new NodeOperationError(this.getNode(), `GET /v1/scans/${scanId}/file returned no link`, {
			itemIndex,
		});
	}
	return await downloadFile.call(this, link.url, fallbackName, { itemIndex, maxBytes, signal });
}

/** A failure goes into the item as `download_error`: triggers must not drop events. */
export async function attachFile(
	this: FileContext,
	item: INodeExecutionData,
	property: string,
	download: () => Promise<DownloadedFile>,
): Promise<void> {
	try {
		const file = await download();
		item.binary = {
			...(item.binary ?? {}),
			[property]: await this.helpers.prepareBinaryData(file.data, file.fileName, file.contentType),
		};
	} catch (error) {
		item.json.download_error = (error as Error).message;
	}
}

/** `missing`: the error when there is no link. */
export async function attachLink(
	this: FileContext,
	item: INodeExecutionData,
	url: unknown,
	fallbackName: string,
	property: string,
	{
		missing = 'No file link to download',
		maxBytes,
		signal,
	}: { missing?: string; maxBytes?: number; signal?: AbortSignal } = {},
): Promise<void> {
	if (typeof url !== 'string' || url === '') {
		item.json.download_error = missing;
		return;
	}
	await attachFile.call(
		this,
		item,
		property,
		async () => await downloadFile.call(this, url, fallbackName, { maxBytes, signal }),
	);
}
