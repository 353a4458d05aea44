import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './actions/account/Account.resource';
import * as address from './actions/address/Address.resource';
import * as bankAccount from './actions/bankAccount/BankAccount.resource';
import * as folder from './actions/folder/Folder.resource';
import * as mail from './actions/mail/Mail.resource';
import { router } from './actions/router';
import * as scan from './actions/scan/Scan.resource';
import * as shipment from './actions/shipment/Shipment.resource';
import {
	searchAddresses,
	searchBankAccounts,
	searchFolders,
	searchMails,
	searchScans,
	searchShipments,
} from './methods/listSearch';

/**
 * Mail first, then the rest alphabetically: n8n's node panel lists a node's actions resource by
 * resource in this order, and filing mail ("File mail by rules") is what most users come for.
 */
const RESOURCES = [
	{ name: 'Mail', value: 'mail' },
	{ name: 'Account', value: 'account' },
	{ name: 'Address', value: 'address' },
	{ name: 'Bank Account', value: 'bankAccount' },
	{ name: 'Folder', value: 'folder' },
	{ name: 'Scan', value: 'scan' },
	{ name: 'Shipment', value: 'shipment' },
];

export class VirtualMailbox implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Virtual Mailbox',
		name: 'virtualMailbox',
		icon: {
			light: 'file:../../icons/virtualMailbox.svg',
			dark: 'file:../../icons/virtualMailbox.dark.svg',
		},
		group: ['transform'],
		version: 1,
		// The operation in words ("move to folder: mail", "get many: scan"), not its saved value.
		subtitle:
			'={{ ({ "mail:update": "move to folder", "mail:getAll": "get many", "scan:create": "request" })[$parameter["resource"] + ":" + $parameter["operation"]] ?? $parameter["operation"].replace(/([A-Z])/g, " $1").toLowerCase() }}: {{ $parameter["resource"] }}',
		description:
			'Read and act on virtual mailbox mail: list and file mail, ' +
			'scans, shipments, folders, addresses and bank accounts',
		defaults: { name: 'Virtual Mailbox' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'virtualMailboxApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: RESOURCES,
				default: 'mail',
			},
			...account.description,
			...address.description,
			...bankAccount.description,
			...folder.description,
			...mail.description,
			...scan.description,
			...shipment.description,
		],
	};

	methods = {
		listSearch: {
			searchAddresses,
			searchBankAccounts,
			searchFolders,
			searchMails,
			searchScans,
			searchShipments,
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
