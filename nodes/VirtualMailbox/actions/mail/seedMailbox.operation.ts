import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest, requireSandbox } from '../../../shared/transport';

export const description: INodeProperties[] = [];

/** POST /v1/sandbox/seed is beyond the published spec. */
export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	await requireSandbox.call(this, 'Seed Mailbox (Sandbox)', i);
	// Not idempotent: the transport never retries it unless the server answered 429.
	const answer = await apiRequest.call(this, 'POST', '/v1/sandbox/seed', { itemIndex: i });
	const ids = Array.isArray(answer.mail_ids) ? answer.mail_ids : [];
	return ids.map((id) => ({ mail_id: String(id) }));
}
