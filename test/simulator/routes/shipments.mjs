// Shipments: the list (type and status filters) and one shipment; read only.
import { paginate } from '../paging.mjs';
import { list } from '../mail-query.mjs';

// A list item has these fields only (the SDK's ShipmentPageDto); the packed items, insurance,
// declared value, instructions and reject reason are in the detail.
const LIST_FIELDS = [
	'id',
	'type',
	'status',
	'tracking_number',
	'service_name',
	'destination',
	'item_count',
	'requested_ship_date',
	'created_on',
	'deposit_check_slip_company_name',
];
const listItem = (shipment) =>
	Object.fromEntries(LIST_FIELDS.map((field) => [field, shipment[field]]));

export default function shipmentRoutes(route, { mailbox }) {
	route('GET', '/v1/shipments', ({ params }) => {
		const types = list(params, 'type', ['shipment', 'return_to_sender', 'check_deposit', 'pickup']);
		const statuses = list(params, 'status', [
			'shipped',
			'in_progress',
			'payment_failed',
			'rejected',
		]);
		return paginate(
			'/v1/shipments',
			params,
			mailbox.db.shipments
				.filter((s) => (!types || types.has(s.type)) && (!statuses || statuses.has(s.status)))
				.map(listItem),
		);
	});
	route('GET', '/v1/shipments/{id}', ({ id }) =>
		mailbox.find(mailbox.db.shipments, id, 'shipment'),
	);
}
