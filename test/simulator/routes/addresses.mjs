// Shipping and deposit addresses: create (the first of a type is its default), list, default, get, update, delete.
import { paginate } from '../paging.mjs';
import { uuidFrom } from '../data.mjs';
import { fail, optionalStrings, requireFields } from '../problems.mjs';

const ADDRESS_FIELDS = ['name', 'line1', 'line2', 'line3', 'city', 'state', 'postal_code', 'country', 'phone_number', 'tax_id'];
const badType = (message) => fail(422, 'type must be shipping or deposit', [{ field: 'type', message }]);

export default function addressRoutes(route, { mailbox }) {
	const db = () => mailbox.db;
	route('POST', '/v1/addresses', ({ body }) => {
		if (!['shipping', 'deposit'].includes(body.type)) throw badType('must be shipping or deposit');
		requireFields(body, ['name', 'line1', 'city', 'state', 'postal_code', 'country', 'phone_number']);
		optionalStrings(body, ['line2', 'line3', 'tax_id']);
		const address = { id: uuidFrom(db().random), type: body.type, is_default: !db().addresses.some((a) => a.type === body.type) };
		for (const field of ADDRESS_FIELDS) address[field] = body[field] ?? null;
		db().addresses.push(address);
		return [201, address];
	});
	route('GET', '/v1/addresses', ({ params }) => paginate('/v1/addresses', params, db().addresses));
	route('GET', '/v1/addresses/default', ({ params }) => {
		const type = params.get('type');
		if (!['shipping', 'deposit'].includes(type)) throw badType('is required');
		const address = db().addresses.find((a) => a.type === type && a.is_default);
		if (!address) throw fail(404, `No default ${type} address`);
		return address;
	});
	route('GET', '/v1/addresses/{id}', ({ id }) => mailbox.find(db().addresses, id, 'address'));
	route('PATCH', '/v1/addresses/{id}', ({ id, body }) => {
		const address = mailbox.find(db().addresses, id, 'address');
		optionalStrings(body, ADDRESS_FIELDS);
		for (const field of ADDRESS_FIELDS) if (body[field] !== undefined) address[field] = body[field];
		return address;
	});
	route('DELETE', '/v1/addresses/{id}', ({ id }) => {
		mailbox.find(db().addresses, id, 'address');
		db().addresses = db().addresses.filter((a) => a.id !== id);
		return [204, undefined];
	});
}
