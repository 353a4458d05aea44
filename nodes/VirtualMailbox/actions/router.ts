import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as account from './account/Account.resource';
import * as address from './address/Address.resource';
import * as bankAccount from './bankAccount/BankAccount.resource';
import * as folder from './folder/Folder.resource';
import * as mail from './mail/Mail.resource';
import * as scan from './scan/Scan.resource';
import * as shipment from './shipment/Shipment.resource';
import { Items } from './items';
import { canonicalRecord } from '../../shared/values';

/** Which record each resource outputs, for canonicalRecord. */
const KIND: Record<string, 'mail' | 'scan' | 'shipment'> = {
	mail: 'mail',
	scan: 'scan',
	shipment: 'shipment',
};

type Execute = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[] | Items>;

const resources: Record<string, Record<string, { execute: Execute }>> = {
	account: account.operations,
	address: address.operations,
	bankAccount: bankAccount.operations,
	folder: folder.operations,
	mail: mail.operations,
	scan: scan.operations,
	shipment: shipment.operations,
};

/** One item in → its API objects out (one n8n item each), paired to the input item. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const resource = this.getNodeParameter('resource', i) as string;
		const operation = this.getNodeParameter('operation', i) as string;
		const handler = resources[resource]?.[operation];
		try {
			if (!handler) {
				throw new NodeOperationError(
					this.getNode(),
					`The operation "${operation}" of resource "${resource}" is not supported`,
					{
						itemIndex: i,
					},
				);
			}
			const result = await handler.execute.call(this, i);
			const kind = KIND[resource] ?? 'other';
			if (result instanceof Items) {
				for (const item of result.items)
					output.push({ ...item, json: canonicalRecord(item.json, kind), pairedItem: { item: i } });
				continue;
			}
			for (const json of Array.isArray(result) ? result : [result]) {
				output.push({ json: canonicalRecord(json ?? {}, kind), pairedItem: { item: i } });
			}
		} catch (error) {
			if (this.continueOnFail()) {
				const context = (error as NodeApiError).context ?? {};
				output.push({
					json: {
						error: (error as Error).message,
						...((error as NodeApiError).description
							? { description: (error as NodeApiError).description }
							: {}),
						...(context.status
							? { status: context.status, code: context.code, requestId: context.requestId }
							: {}),
					} as IDataObject,
					pairedItem: { item: i },
				});
				continue;
			}
			if (error instanceof NodeApiError)
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
		}
	}
	return [output];
}
