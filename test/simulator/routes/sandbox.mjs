// Sandbox-only endpoints: force a pending scan to completed, seed sample mail or one mail item.
import { fail, optionalStrings } from '../problems.mjs';

/** The SDK's SeedSandboxMailDto mail_type values → the REST mail_type they are listed under. */
export const SEED_MAIL_TYPES = { LETTER: 'letter', LARGELETTER: 'large_letter', MAGAZINE: 'magazine', CATALOG: 'catalog', SOFTPAK: 'softpak', PACKAGE: 'package' };
const SAMPLE_SENDERS = ['City Utilities', 'Internal Revenue Service', 'Chase Bank', 'Wired Magazine', 'Costco', 'Amazon'];
const invalid = (field, message) => fail(422, `${field} ${message}`, [{ field, message, code: 'invalid' }]);
const isNumber = (n) => typeof n === 'number' && Number.isFinite(n) && n > 0;

function seedFields(body) {
	optionalStrings(body, ['sender_name']);
	if (body.mail_type !== undefined && !(body.mail_type in SEED_MAIL_TYPES)) throw invalid('mail_type', `must be one of ${Object.keys(SEED_MAIL_TYPES).join(', ')}`);
	if (body.weight !== undefined && !isNumber(body.weight)) throw invalid('weight', 'must be a positive number (pounds)');
	const m = body.measurement;
	if (m !== undefined && !(m && typeof m === 'object' && ['width', 'height', 'length'].every((k) => isNumber(m[k])))) throw invalid('measurement', 'must have width, height and length in inches');
	return { sender_name: body.sender_name, mail_type: body.mail_type && SEED_MAIL_TYPES[body.mail_type], weight: body.weight, measurement: m && { width: m.width, height: m.height, length: m.length } };
}

export default function sandboxRoutes(route, { mailbox }) {
	route('POST', '/v1/sandbox/scans/{id}/complete', ({ id, body }) => {
		const scan = mailbox.scanById(id);
		optionalStrings(body, ['label']);
		if (body.summary !== undefined && (!Array.isArray(body.summary) || body.summary.some((s) => typeof s !== 'string'))) {
			throw fail(422, 'summary must be a list of strings', [{ field: 'summary', message: 'must be a list of strings' }]);
		}
		if (scan.status !== 'IN_PROCESS') throw fail(409, `Only pending scans can be completed; this one is ${scan.status}`);
		mailbox.setScanStatus(scan, 'COMPLETED', { label: body.label ?? scan.label, summary: body.summary ?? scan.summary });
		return mailbox.scanOut(scan);
	});
	route('POST', '/v1/sandbox/seed', () => {
		const mails = Object.values(SEED_MAIL_TYPES).map((mail_type, n) => mailbox.addMail({ mail_type, sender_name: SAMPLE_SENDERS[n] }));
		return [201, { mail_ids: mails.map((m) => m.id) }];
	});
	route('POST', '/v1/sandbox/seed/mail', ({ body }) => [201, { mail_id: mailbox.addMail(seedFields(body)).id }]);
}
