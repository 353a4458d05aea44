// Shipments: the list (type and status filters) and one shipment; read only.
import { paginate } from '../paging.mjs';

export default function shipmentRoutes(route, { mailbox }) {
	route('GET', '/v1/shipments', ({ params }) => {
		const types = params.getAll('type');
		const statuses = params.getAll('status');
		return paginate('/v1/shipments', params, mailbox.db.shipments.filter((s) => (!types.length || types.includes(s.type)) && (!statuses.length || statuses.includes(s.status))));
	});
	route('GET', '/v1/shipments/{id}', ({ id }) => mailbox.find(mailbox.db.shipments, id, 'shipment'));
}
