import type { INodeExecutionData } from 'n8n-workflow';

/** What an operation returns when API objects alone are not enough: ready items (with binary data). */
export class Items {
	constructor(readonly items: INodeExecutionData[]) {}
}
