// Scans: list, request, one scan, delete, the signed file link, cancel and the AI summary.
import { paginate } from '../paging.mjs';
import { queryScans } from '../mail-query.mjs';
import { iso } from '../mailbox.mjs';
import { fail, requireFields } from '../problems.mjs';

export default function scanRoutes(route, { mailbox }) {
	route('GET', '/v1/scans', ({ params }) =>
		paginate(
			'/v1/scans',
			params,
			queryScans(mailbox.db.scans, params, { mails: mailbox.db.mails }).map((s) =>
				mailbox.scanOut(s),
			),
		),
	);
	route('POST', '/v1/scans', ({ body }) => {
		requireFields(body, ['mail_id', 'type']);
		if (!['scan', 'open'].includes(body.type))
			throw fail(422, 'type must be scan or open', [
				{ field: 'type', message: 'must be scan or open' },
			]);
		const mail = mailbox.mailById(String(body.mail_id));
		if (mail.scan && mail.scan.status === 'IN_PROCESS')
			throw fail(409, `Mail item ${mail.id} already has a scan in process`);
		return [
			201,
			mailbox.scanOut(
				mailbox.createScan(mail, body.type === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST', body),
			),
		];
	});
	route('GET', '/v1/scans/{id}', ({ id }) => mailbox.scanOut(mailbox.scanById(id)));
	// The SDK returns the deleted scan (ScanDto).
	route('DELETE', '/v1/scans/{id}', ({ id }) => {
		const scan = mailbox.scanById(id);
		mailbox.setScanStatus(scan, 'DELETED');
		return mailbox.scanOut(scan);
	});
	route('GET', '/v1/scans/{id}/file', ({ id }) => {
		const scan = mailbox.scanById(id);
		if (scan.status !== 'COMPLETED')
			throw fail(409, `Scan ${id} is ${scan.status}; only completed scans have a file`);
		const path =
			scan.type === 'UNBOXING_REQUEST' ? `/files/opens/${id}.pdf` : `/files/scans/${id}.pdf`;
		return { url: mailbox.signedUrl(path, 15 * 60_000), expires_at: iso(Date.now() + 15 * 60_000) };
	});
	route('POST', '/v1/scans/{id}/cancel', ({ id }) => {
		const scan = mailbox.scanById(id);
		if (scan.status !== 'IN_PROCESS')
			throw fail(409, `Only scans in process can be cancelled; this one is ${scan.status}`);
		mailbox.setScanStatus(scan, 'CANCELLED');
		return mailbox.scanOut(scan);
	});
	route('GET', '/v1/scans/{id}/summary', ({ id }) => {
		const scan = mailbox.scanById(id);
		return { label: scan.label ?? null, summary: scan.summary ?? null };
	});
}
