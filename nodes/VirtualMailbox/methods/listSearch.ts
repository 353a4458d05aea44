import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listAllFolders } from '../../shared/folders';
import { apiRequest, type Page } from '../../shared/transport';

const matches = (text: string, filter?: string) => !filter || text.toLowerCase().includes(filter.toLowerCase());

export async function searchFolders(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const folders = await listAllFolders.call(this);
	return {
		results: folders
			.map((folder) => ({ name: String(folder.name ?? folder.id), value: String(folder.id) }))
			.filter((entry) => matches(entry.name, filter))
			.sort((a, b) => a.name.localeCompare(b.name)),
	};
}

export async function searchBankAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = (await apiRequest.call(this, 'GET', '/v1/bank-accounts', {
		query: { limit: 100, cursor: paginationToken },
	})) as unknown as Page;
	return {
		results: (page.data ?? [])
			.map((account) => ({
				name: `${String(account.bank_name ?? 'Bank account')} ••••${String(account.account_number_last4 ?? '')}`,
				value: String(account.id),
			}))
			.filter((entry) => matches(entry.name, filter)),
		paginationToken: page.next_cursor ?? undefined,
	};
}
