// GET /v1/account and its mailing address.
export default function accountRoutes(route, { mailbox, accountId }) {
	// Each simulator is one account: its id is its own, even for another simulator of the same seed.
	route('GET', '/v1/account', () => ({ ...mailbox.db.account, id: accountId() }));
	route('GET', '/v1/account/mailing-address', () => ({
		box_number: mailbox.db.account.box_number,
		formatted: `2108 N St PMB ${mailbox.db.account.box_number}, Sacramento, CA, 95816, US`,
		line1: '2108 N St',
		line2: null,
		line3: null,
		city: 'Sacramento',
		state: 'CA',
		postal_code: '95816',
		country: 'US',
	}));
}
