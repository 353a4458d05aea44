// Sandbox-only endpoints: force a pending scan to completed, seed a test mail item.
import { fail, optionalStrings } from '../problems.mjs';

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
	route('POST', '/v1/sandbox/seed/mail', ({ body }) => [201, mailbox.mailEntry(mailbox.addMail(body))]);
}
