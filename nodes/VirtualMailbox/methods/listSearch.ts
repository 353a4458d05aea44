import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { listAllFolders } from '../../shared/folders';
import { getPage } from '../../shared/transport';
import type { Query } from '../../shared/transport/query';

// The "From List" modes of the action node's resource locators. Lists the API can search (mail,
// scans) pass the typed text as its `search`; the others are filtered here, page by page.

const PAGE = 50;

const matches = (text: string, filter?: string) =>
	!filter || text.toLowerCase().includes(filter.toLowerCase());

const day = (value: unknown) => (typeof value === 'string' ? value.slice(0, 10) : '');

/** Pure: "a · b · c" of the parts that are set. */
const joined = (...parts: unknown[]) =>
	parts
		.filter((part) => part !== null && part !== undefined && part !== '')
		.map(String)
		.join(' · ');

/** Pure: as a user recognises the mail item on the envelope. */
export function mailEntry(mail: IDataObject): INodeListSearchItems {
	const from = mail.sender_name ? String(mail.sender_name) : 'Unknown sender';
	const to = mail.recipient_name ? ` → ${String(mail.recipient_name)}` : '';
	return {
		name: joined(
			`${from}${to}`,
			mail.mail_type ? String(mail.mail_type).replace(/_/g, ' ') : '',
			day(mail.arrival_date),
			`#${String(mail.id)}`,
		),
		value: String(mail.id),
	};
}

export function scanEntry(scan: IDataObject): INodeListSearchItems {
	const kind = /open/i.test(String(scan.type ?? '')) ? 'Open and scan' : 'Scan';
	return {
		name: joined(
			`${kind} of mail #${String(scan.mail_id ?? '?')}`,
			scan.label,
			String(scan.status ?? '')
				.toLowerCase()
				.replace(/_/g, ' '),
			day(scan.created_at),
		),
		value: String(scan.id),
	};
}

export function shipmentEntry(shipment: IDataObject): INodeListSearchItems {
	const destination = (shipment.destination ?? {}) as IDataObject;
	const items = Number(
		shipment.item_count ?? (shipment.mail_items as unknown[] | undefined)?.length ?? 0,
	);
	return {
		name: joined(
			String(shipment.type ?? 'shipment')
				.replace(/_/g, ' ')
				.replace(/^\w/, (c) => c.toUpperCase()),
			destination.name ? `to ${String(destination.name)}` : '',
			`${items} item${items === 1 ? '' : 's'}`,
			String(shipment.status ?? '').replace(/_/g, ' '),
			day(shipment.created_on ?? shipment.created_at),
			shipment.tracking_number,
		),
		value: String(shipment.id),
	};
}

export function addressEntry(address: IDataObject): INodeListSearchItems {
	const where = [address.name, address.line1, address.city].filter(Boolean).map(String).join(', ');
	return {
		name: `${where} (${String(address.type ?? 'address')}${address.is_default ? ', default' : ''})`,
		value: String(address.id),
	};
}

/** The editor asks for more only on scroll. */
const FILTER_PAGES = 10;

async function searchPage(
	ctx: ILoadOptionsFunctions,
	path: string,
	query: Query,
	entry: (object: IDataObject) => INodeListSearchItems,
	filter: string | undefined,
	paginationToken: string | undefined,
	pageSize = PAGE,
): Promise<INodeListSearchResult> {
	// A search the API ran is not filtered again (it may match fields the line does not show).
	const filterHere = !('search' in query) && !!filter;
	let token = paginationToken;
	let results: INodeListSearchItems[] = [];
	// n8n's editor shows "No results" for an empty answer even when it carries a next token, so a
	// local filter keeps reading until something matches or the list (or the bound) ends.
	for (let read = 0; read < (filterHere ? FILTER_PAGES : 1); read++) {
		const page = await getPage(ctx, path, query, pageSize, token);
		results = page.data.map(entry).filter((result) => !filterHere || matches(result.name, filter));
		token = page.next_cursor ?? undefined;
		if (results.length > 0 || !token) break;
	}
	return { results, paginationToken: token };
}

const searchQuery = (filter?: string): Query =>
	filter?.trim() ? { sort: 'newest', search: filter.trim() } : { sort: 'newest' };

export async function searchMails(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(
		this,
		'/v1/mails',
		searchQuery(filter),
		mailEntry,
		filter,
		paginationToken,
	);
}

export async function searchScans(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(
		this,
		'/v1/scans',
		searchQuery(filter),
		scanEntry,
		filter,
		paginationToken,
	);
}

export async function searchShipments(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/v1/shipments', {}, shipmentEntry, filter, paginationToken);
}

export async function searchAddresses(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/v1/addresses', {}, addressEntry, filter, paginationToken);
}

export async function searchFolders(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
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
	return await searchPage(
		this,
		'/v1/bank-accounts',
		{},
		(account) => ({
			name:
				`${String(account.bank_name ?? 'Bank account')} ` +
				`••••${String(account.account_number_last4 ?? '')}`,
			value: String(account.id),
		}),
		filter,
		paginationToken,
		// A customer has a handful of bank accounts: one page of 100 holds them all.
		100,
	);
}
