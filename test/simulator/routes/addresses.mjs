// Shipping and deposit addresses: create (the first of a type is its default), list (by type), default, get, update (type too), set default, delete.
import { paginate } from '../paging.mjs';
import { fail, optionalStrings, requireFields } from '../problems.mjs';

const ADDRESS_FIELDS = [
	'name',
	'line1',
	'line2',
	'line3',
	'city',
	'state',
	'postal_code',
	'country',
	'phone_number',
	'tax_id',
];
const TYPES = ['shipping', 'deposit'];
const badType = (message) =>
	fail(422, 'type must be shipping or deposit', [{ field: 'type', message }]);

export default function addressRoutes(route, { mailbox }) {
	const db = () => mailbox.db;
	route('POST', '/v1/addresses', ({ body }) => {
		if (!['shipping', 'deposit'].includes(body.type)) throw badType('must be shipping or deposit');
		requireFields(body, [
			'name',
			'line1',
			'city',
			'state',
			'postal_code',
			'country',
			'phone_number',
		]);
		optionalStrings(body, ['line2', 'line3', 'tax_id']);
		const address = {
			id: mailbox.newUuid(),
			type: body.type,
			is_default: !db().addresses.some((a) => a.type === body.type),
		};
		for (const field of ADDRESS_FIELDS) address[field] = body[field] ?? null;
		db().addresses.push(address);
		return [201, address];
	});
	route('GET', '/v1/addresses', ({ params }) => {
		const types = params.getAll('type');
		if (types.length > 1)
			throw fail(422, 'type takes one value', [{ field: 'type', message: 'takes one value' }]);
		if (types.length && !TYPES.includes(types[0])) throw badType('must be shipping or deposit');
		return paginate(
			'/v1/addresses',
			params,
			db().addresses.filter((a) => !types.length || a.type === types[0]),
		);
	});
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
		if (body.type !== undefined && !TYPES.includes(body.type))
			throw badType('must be shipping or deposit');
		for (const field of ADDRESS_FIELDS) if (body[field] !== undefined) address[field] = body[field];
		// Assumption (the SDK is silent): an address moved to the other type leaves its old type
		// without a default and becomes the new type's default only if that type had none.
		if (body.type !== undefined && body.type !== address.type) {
			address.type = body.type;
			address.is_default = !db().addresses.some(
				(a) => a !== address && a.type === body.type && a.is_default,
			);
		}
		return address;
	});
	route('PATCH', '/v1/addresses/{id}/default', ({ id }) => {
		const address = mailbox.find(db().addresses, id, 'address');
		for (const other of db().addresses)
			if (other.type === address.type) other.is_default = other === address;
		return address;
	});
	route('DELETE', '/v1/addresses/{id}', ({ id }) => {
		mailbox.find(db().addresses, id, 'address');
		db().addresses = db().addresses.filter((a) => a.id !== id);
		return [204, undefined];
	});
}
