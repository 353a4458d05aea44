// Problem details the simulator answers with, as the API does (docs/api.md, "Errors").
import { ApiError } from './paging.mjs';
import { randomToken } from './data.mjs';

export const TITLES = {
	400: 'Bad request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not found',
	409: 'Conflict',
	422: 'Validation failed',
	429: 'Too many requests',
	500: 'Internal error',
	503: 'Service unavailable',
};
export const CODES = {
	400: 'bad_request',
	401: 'unauthorized',
	403: 'forbidden',
	404: 'not_found',
	409: 'conflict',
	422: 'validation_error',
	429: 'rate_limited',
	500: 'internal_error',
	503: 'unavailable',
};

export const fail = (status, detail, errors) =>
	new ApiError(status, CODES[status], TITLES[status], detail, errors);
export const notFound = (what, id) => fail(404, `No ${what} with id ${id}`);

/** The problem-details body of an ApiError. */
export function problemBody(error) {
	const status = error.status ?? 500;
	return {
		type: `https://errors.virtual-mailbox.test/${error.code ?? CODES[status]}`,
		title: error.title ?? TITLES[status] ?? 'Error',
		status,
		code: error.code ?? CODES[status] ?? 'error',
		request_id: `req_${randomToken()}`,
		...(error.detail ? { detail: error.detail } : {}),
		...(error.errors ? { errors: error.errors } : {}),
	};
}

// ---- request body checks ----
export const requireFields = (body, fields) => {
	const errors = fields
		.filter((f) => typeof body[f] !== 'string' || body[f].trim() === '')
		.map((field) => ({ field, message: 'is required', code: 'required' }));
	if (errors.length)
		throw fail(422, `Missing required fields: ${errors.map((e) => e.field).join(', ')}`, errors);
};
export const optionalStrings = (body, fields) => {
	const errors = fields
		.filter((f) => body[f] !== undefined && body[f] !== null && typeof body[f] !== 'string')
		.map((field) => ({ field, message: 'must be a string', code: 'type' }));
	if (errors.length) throw fail(422, 'Invalid field types', errors);
};
export const checkColor = (color) => {
	if (color !== undefined && color !== null && !/^#[0-9A-Fa-f]{6}$/.test(color))
		throw fail(422, 'color must be #RRGGBB', [
			{ field: 'color', message: 'must be #RRGGBB', code: 'format' },
		]);
};
