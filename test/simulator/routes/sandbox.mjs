// Sandbox-only endpoints: force a pending scan to completed, seed sample mail or one mail item.
import { fail, optionalStrings } from '../problems.mjs';
import { SEED_MAIL_TYPES } from '../../support/schemas.mjs';
import { restMailType } from '../data.mjs';
const SAMPLE_SENDERS = [
	'City Utilities',
	'Internal Revenue Service',
	'Chase Bank',
	'Wired Magazine',
	'Costco',
	'Amazon',
];
const invalid = (field, message) =>
	fail(422, `${field} ${message}`, [{ field, message, code: 'invalid' }]);
const isPositiveNumber = (n) => typeof n === 'number' && Number.isFinite(n) && n > 0;

function seedFields(body) {
	optionalStrings(body, ['sender_name']);
	if (body.mail_type !== undefined && !SEED_MAIL_TYPES.includes(body.mail_type))
		throw invalid('mail_type', `must be one of ${SEED_MAIL_TYPES.join(', ')}`);
	if (body.weight !== undefined && !isPositiveNumber(body.weight))
		throw invalid('weight', 'must be a positive number (pounds)');
	const m = body.measurement;
	if (
		m !== undefined &&
		!(
			m &&
			typeof m === 'object' &&
			['width', 'height', 'length'].every((k) => isPositiveNumber(m[k]))
		)
	)
		throw invalid('measurement', 'must have width, height and length in inches');
	return {
		sender_name: body.sender_name,
		mail_type: body.mail_type && restMailType(body.mail_type),
		weight: body.weight,
		measurement: m && { width: m.width, height: m.height, length: m.length },
	};
}

export default function sandboxRoutes(route, { mailbox }) {
	route('POST', '/v1/sandbox/scans/{id}/complete', ({ id, body }) => {
		const scan = mailbox.scanById(id);
		optionalStrings(body, ['label']);
		if (
			body.summary !== undefined &&
			(!Array.isArray(body.summary) || body.summary.some((s) => typeof s !== 'string'))
		) {
			throw fail(422, 'summary must be a list of strings', [
				{ field: 'summary', message: 'must be a list of strings' },
			]);
		}
		if (scan.status !== 'IN_PROCESS')
			throw fail(409, `Only pending scans can be completed; this one is ${scan.status}`);
		mailbox.setScanStatus(scan, 'COMPLETED', {
			label: body.label ?? scan.label,
			summary: body.summary ?? scan.summary,
		});
		return mailbox.scanOut(scan);
	});
	route('POST', '/v1/sandbox/seed', () => {
		const mails = SEED_MAIL_TYPES.map((seedType, n) =>
			mailbox.addMail({ mail_type: restMailType(seedType), sender_name: SAMPLE_SENDERS[n] }),
		);
		return [201, { mail_ids: mails.map((m) => m.id) }];
	});
	route('POST', '/v1/sandbox/seed/mail', ({ body }) => [
		201,
		{ mail_id: mailbox.addMail(seedFields(body)).id },
	]);
}
