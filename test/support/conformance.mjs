// The conformance check: requests and answers against the SDK's shapes (schemas.mjs, OPERATIONS).
// The simulator checks every answer it gives and every request it is sent; the nock API mock
// checks every request a node sends. A mismatch is recorded here, and the unit and e2e setup
// (test/setup/conformance-hooks.mjs) fails the test during which it happened.
import { z } from 'zod';
import { OPERATIONS, Problem, SCAN_STATUS } from './schemas.mjs';

const templates = Object.keys(OPERATIONS).map((key) => {
	const [method, path] = key.split(' ');
	return { key, method, regex: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) };
});

/** The OPERATIONS key of a request (`GET /v1/scans/{id}`), or undefined for a path the SDK does not have. */
export function operationOf(method, path) {
	return templates.find((t) => t.method === method && t.regex.test(path))?.key;
}

/**
 * The schema with every object in it strict: a field the SDK does not declare is an error.
 * `swap` replaces a part of it (asDeclared).
 */
export function strictDeep(schema, swap = (part) => part) {
	const swapped = swap(schema);
	if (swapped !== schema) return swapped;
	const deep = (part) => strictDeep(part, swap);
	if (schema instanceof z.ZodObject)
		return z
			.object(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, deep(v)])))
			.strict();
	if (schema instanceof z.ZodArray) return z.array(deep(schema.element));
	if (schema instanceof z.ZodNullable) return deep(schema.unwrap()).nullable();
	if (schema instanceof z.ZodOptional) return deep(schema.unwrap()).optional();
	return schema;
}
const strictAnswers = new Map(
	Object.entries(OPERATIONS).map(([key, op]) => [key, op.answer && strictDeep(op.answer)]),
);
/**
 * The answers as the SDK's types declare them where our schemas are stricter from its comments
 * only: a scan status is a plain `string` there. A simulator playing a status the spec does not
 * list (the spec leaves the moves "not shown") is checked against these.
 */
const asDeclared = (part) => (part === SCAN_STATUS ? z.string() : part);
const declaredAnswers = new Map(
	Object.entries(OPERATIONS).map(([key, op]) => [
		key,
		op.answer && strictDeep(op.answer, asDeclared),
	]),
);
const strictProblem = strictDeep(Problem);

const issues = (result) =>
	result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

/**
 * What is wrong with a request as the SDK would send it: method and path, query names, values and
 * encoding (lists as repeated keys, no brackets), body fields. `query` maps each name to its values.
 */
export function requestProblems({ method, path, query = {}, body }) {
	const key = operationOf(method, path);
	if (!key) return [`${method} ${path} is no operation of the SDK`];
	const op = OPERATIONS[key];
	const problems = [];
	for (const [name, values] of Object.entries(query)) {
		const schema = op.query?.[name];
		if (!schema) {
			problems.push(
				`${key}: query parameter "${name}" is not in the SDK's request${name.includes('[') ? ' (lists go as repeated keys without brackets)' : ''}`,
			);
			continue;
		}
		if (values.length > 1 && !op.lists?.includes(name))
			problems.push(`${key}: query parameter "${name}" takes one value, got ${values.length}`);
		for (const value of values) {
			const result = schema.safeParse(value);
			if (!result.success) problems.push(`${key}: query ${name}=${value}: ${issues(result)}`);
		}
	}
	for (const name of op.required ?? [])
		if (!(name in query)) problems.push(`${key}: query parameter "${name}" is required`);
	let parsed = body;
	if (typeof body === 'string' || Buffer.isBuffer(body)) {
		try {
			parsed = JSON.parse(String(body));
		} catch {
			problems.push(`${key}: the body is not JSON`);
			return problems;
		}
	}
	const hasFields =
		parsed !== undefined &&
		parsed !== null &&
		!(typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 0);
	if (!op.body) {
		if (hasFields) problems.push(`${key}: the SDK sends no body, got ${JSON.stringify(parsed)}`);
	} else {
		const result = strictDeep(op.body).safeParse(parsed ?? {});
		if (!result.success) problems.push(`${key}: body ${issues(result)}`);
	}
	return problems;
}

/**
 * What is wrong with an answer to `method path`: a 2xx against the SDK's type, an error against
 * problem details. `declared`: against the SDK's types as declared (asDeclared), not the stricter
 * reading of their comments.
 */
export function answerProblems(method, path, status, body, { declared = false } = {}) {
	const key = operationOf(method, path);
	if (!key) return [];
	if (status >= 400) {
		const result = strictProblem.safeParse(body);
		return result.success
			? []
			: [`${key} answered ${status} with a body that is no problem details: ${issues(result)}`];
	}
	const schema = (declared ? declaredAnswers : strictAnswers).get(key);
	if (schema === null)
		return body === undefined
			? []
			: [
					`${key}: the SDK declares no content, the answer has ${JSON.stringify(body).slice(0, 120)}`,
				];
	const result = schema.safeParse(body);
	return result.success ? [] : [`${key}: the answer is not the SDK's type: ${issues(result)}`];
}

/** Mismatches not yet taken; outside vitest (`npm run dev`, the model runner) nobody takes them, so only the latest 1,000 are kept. */
const violations = [];
const KEPT = 1_000;

/** Record mismatches; the test running now fails when it ends. */
export function report(source, problems) {
	for (const problem of problems) violations.push(`${source}: ${problem}`);
	if (violations.length > KEPT) violations.splice(0, violations.length - KEPT);
}

/** The mismatches recorded since the last call, and forget them. */
export function takeViolations() {
	return violations.splice(0, violations.length);
}
