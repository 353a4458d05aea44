import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listAllFolders } from '../../shared/folders';
import { getPage } from '../../shared/transport';

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
	const page = await getPage(this, '/v1/bank-accounts', {}, 100, paginationToken);
	return {
		results: page.data
			.map((account) => ({
				name: `${String(account.bank_name ?? 'Bank account')} ••••${String(account.account_number_last4 ?? '')}`,
				value: String(account.id),
			}))
			.filter((entry) => matches(entry.name, filter)),
		paginationToken: page.next_cursor ?? undefined,
	};
}
