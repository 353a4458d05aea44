// Operations of the account resource: one table of cases (see cases.mjs), then behaviour beyond one request.
import * as F from '../../../support/fixtures.mjs';
import { operationCases, useApiMock } from './cases.mjs';

const mock = useApiMock();

operationCases('account operations send the exact request and output the API object', mock, [
	{
		name: 'account get',
		parameters: { resource: 'account', operation: 'get' },
		request: ['GET', '/v1/account'],
		reply: F.account(),
	},
	{
		name: 'account getMailingAddress',
		parameters: { resource: 'account', operation: 'getMailingAddress' },
		request: ['GET', '/v1/account/mailing-address'],
		reply: F.mailingAddress(),
	},
]);
