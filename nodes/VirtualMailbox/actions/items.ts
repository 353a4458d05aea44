import type { INodeExecutionData } from 'n8n-workflow';

/** Ready items, when API objects alone are not enough (binary data). */
export class Items {
	constructor(readonly items: INodeExecutionData[]) {}
}
