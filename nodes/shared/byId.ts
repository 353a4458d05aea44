import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeProperties,
} from 'n8n-workflow';

import { getId, type IdKind } from './validate';
import { apiRequest, segment } from './transport';
import { forOperation } from './display';

/**
 * An operation that sends one request about one object and outputs the answer: the shape of most
 * operations (get, cancel, archive, delete…). `path` gets the checked, URL-encoded id.
 */
export function byIdOperation(spec: {
	resource: string;
	operation: string;
	field: INodeProperties;
	/** A notice shown above the ID in the panel (what the operation costs or destroys). */
	notice?: string;
	label: string;
	kind: IdKind;
	method: IHttpRequestMethods;
	path: (id: string) => string;
	/** What to output when the API answers with an empty body (DELETE). */
	empty?: (id: string) => IDataObject;
	output?: (body: IDataObject) => IDataObject;
}) {
	const notice: INodeProperties[] = spec.notice
		? [{ displayName: spec.notice, name: `${spec.operation}Notice`, type: 'notice', default: '' }]
		: [];
	const description: INodeProperties[] = forOperation(spec.resource, spec.operation, [
		...notice,
		spec.field,
	]);
	async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
		const id = getId.call(this, spec.field.name, i, spec.label, spec.kind);
		const body = await apiRequest.call(this, spec.method, spec.path(segment(id)), { itemIndex: i });
		if (spec.empty && (!body || Object.keys(body).length === 0)) return spec.empty(id);
		return spec.output ? spec.output(body) : body;
	}
	return { description, execute };
}

export const deleted = (id: string): IDataObject => ({ id, deleted: true });
