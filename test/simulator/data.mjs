// Deterministic seed data: N mail items (any N up to 100,000) with realistic senders, types,
// statuses, scans, folders, shipments, addresses and bank accounts.
import crypto from 'node:crypto';

export function rng(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * Mail ids a session adds: each session has its own range above the seeded ids (up to 100,000),
 * so a session never adds a mail id an earlier one added.
 */
export const SESSION_MAIL_IDS = 10_000_000;

/**
 * A UUID for a scan or shipment: `uuidFrom(random)`, whose first 8 hex digits are the session's
 * number in a session other than 0, so two sessions never share one (session 0, the tests': as drawn).
 */
export function sessionUuid(random, session = 0) {
	const id = uuidFrom(random);
	return session ? `${(session >>> 0).toString(16).padStart(8, '0')}${id.slice(8)}` : id;
}

/** UUID v4 shaped id from a PRNG, so seeded data is the same every run. */
export function uuidFrom(random) {
	const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Math.floor(random() * 4)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const SENDERS = [
	'Internal Revenue Service',
	'Chase Bank',
	'City Utilities',
	'Amazon',
	'State Farm Insurance',
	'Blue Cross Health',
	'DMV',
	'Verizon',
	'American Express',
	'County Tax Assessor',
	'Wells Fargo',
	'Social Security Administration',
	'Costco',
	'Comcast',
	'Fidelity Investments',
	'Jury Duty Office',
	'Acme Corp Payroll',
	'Alumni Association',
];
const TYPE_WEIGHTS = [
	['letter', 60],
	['large_letter', 10],
	['magazine', 8],
	['package', 10],
	['softpak', 4],
	['catalog', 5],
	['distribution', 1],
	['fulfillment', 1],
	['inventory', 1],
];
const STATUS_WEIGHTS = [
	['inbox', 55],
	['archived', 35],
	['quarantine', 3],
	['discard_request', 7],
];
const SCAN_WEIGHTS = [
	['COMPLETED', 85],
	['CANCELLED', 5],
	['REJECTED', 3],
	['DELETED', 7],
];
const SCAN_WEIGHTS_RECENT = [
	['IN_PROCESS', 55],
	['RESTORING', 5],
	['COMPLETED', 40],
];
export const TYPE_LABELS = {
	letter: 'Letter',
	large_letter: 'Large letter',
	magazine: 'Magazine',
	package: 'Package',
	softpak: 'Softpak',
	catalog: 'Catalog',
	distribution: 'Distribution',
	fulfillment: 'Fulfillment',
	inventory: 'Inventory',
};

/** The SDK's upper-case mail type (seed requests, webhook payloads) as the REST mail_type, and back: LARGELETTER is large_letter. */
export const restMailType = (token) =>
	token === 'LARGELETTER' ? 'large_letter' : token.toLowerCase();
export const mailTypeToken = (type) =>
	type === 'large_letter' ? 'LARGELETTER' : type.toUpperCase();

/**
 * The request a mail type takes (SDK, SeedSandboxMailDto): letters and large letters a scan
 * (`scan`, SCAN_REQUEST), every other type an open-and-scan (`open`, UNBOXING_REQUEST).
 */
export const scanKindFor = (mailType) =>
	mailType === 'letter' || mailType === 'large_letter' ? 'scan' : 'open';

function weighted(random, table) {
	const total = table.reduce((sum, [, w]) => sum + w, 0);
	let roll = random() * total;
	for (const [value, weight] of table) if ((roll -= weight) < 0) return value;
	return table[table.length - 1][0];
}

const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The whole account. `now` anchors arrival dates (the newest mail arrived just before it), so
 * the `arrived` filter has items in every period. `session`: the run's number where runs share
 * one n8n (`npm run dev` counts them): its scan and shipment ids and the mail ids it adds are ones
 * no other session has; everything else is the same for every session.
 */
export function seed({
	count = 500,
	seed: seedValue = 42,
	now = Date.now(),
	baseUrl = 'http://127.0.0.1',
	letterShare,
	session = 0,
} = {}) {
	const random = rng(seedValue);
	// A mailbox with `letterShare` percent letters (a real one runs about 70%), the other types in proportion.
	const typeWeights =
		letterShare === undefined
			? TYPE_WEIGHTS
			: TYPE_WEIGHTS.map(([type, weight]) => [
					type,
					type === 'letter'
						? letterShare
						: (weight * (100 - letterShare)) / (100 - TYPE_WEIGHTS[0][1]),
				]);
	const folders = ['Bills', 'Taxes', 'Insurance', 'Banking', 'Health', 'Receipts'].map(
		(name, index) => ({
			id: String(index + 1),
			name,
			created_on: iso(now - 400 * 86_400_000),
			updated_on: iso(now - 100 * 86_400_000),
			color: ['#1A73E8', '#D93025', '#188038', '#F9AB00', '#A142F4', null][index],
		}),
	);
	const mails = [];
	const scans = [];
	// Two years of mail, evenly spread, newest first in id order reversed.
	const span = 2 * 365 * 86_400_000;
	for (let n = 0; n < count; n++) {
		const id = String(100000 + n);
		const arrival = now - 60_000 - Math.floor(((count - n) / Math.max(count, 1)) * span);
		const mail_type = weighted(random, typeWeights);
		const mail_status = weighted(random, STATUS_WEIGHTS);
		const sender = SENDERS[Math.floor(random() * SENDERS.length)];
		const mail = {
			id,
			is_read: random() < 0.6,
			mail_status,
			mail_type,
			folder_id: random() < 0.25 ? folders[Math.floor(random() * folders.length)].id : null,
			sender_name: sender,
			recipient_name: random() < 0.9 ? 'Ada Lovelace' : 'Charles Babbage',
			arrival_date: iso(arrival),
			envelope_image_url: `${baseUrl}/files/envelopes/${id}.jpg`,
			quarantine_reason:
				mail_status === 'quarantine' ? 'Recipient not listed on USPS Form 1583' : null,
			scan: null,
			// detail-only fields
			weight:
				Math.round((mail_type === 'package' ? 1 + random() * 10 : 0.05 + random() * 0.5) * 100) /
				100,
			measurement:
				mail_type === 'package'
					? { width: 12, height: 9, length: 4 }
					: { width: 9.5, height: 4.1, length: 0.2 },
			tracking_number:
				mail_type === 'package'
					? `1Z${String(Math.floor(random() * 1e10)).padStart(10, '0')}`
					: null,
			sender_address: `${Math.floor(random() * 9000) + 100} Main St, Springfield`,
			has_storage_charges: random() < 0.1,
			previous_status:
				mail_status === 'discard_request' || mail_status === 'archived' ? 'inbox' : null,
		};
		// Scans finish within a day (provider facts): only the newest mail still has scans in process.
		const recent = n >= count - 30;
		if (random() < (recent ? 0.6 : 0.3)) {
			const status = weighted(random, recent ? SCAN_WEIGHTS_RECENT : SCAN_WEIGHTS);
			const type = scanKindFor(mail_type) === 'open' ? 'UNBOXING_REQUEST' : 'SCAN_REQUEST';
			// A package once drew its kind here: the draw is kept so that every seed's data stays as before.
			if (mail_type === 'package') random();
			// Requested an hour after arrival, never in the future (the newest mail arrived minutes ago).
			const created = Math.min(arrival + 3_600_000, now - 30_000);
			const changed = Math.min(created + 7_200_000, Math.max(created, now - 30_000));
			const scan = {
				id: sessionUuid(random, session),
				mail_id: id,
				type,
				status,
				is_expedited: random() < 0.2,
				created_at: iso(created),
				updated_at: iso(changed),
				instruction: null,
				reject_reason: status === 'REJECTED' ? 'Item cannot be opened safely' : null,
				label: status === 'COMPLETED' ? `${sender} ${TYPE_LABELS[mail_type].toLowerCase()}` : null,
				status_updated_at: iso(changed),
				auto_delete_on: status === 'COMPLETED' ? iso(created + 120 * 86_400_000) : null,
				summary:
					status === 'COMPLETED'
						? [`From ${sender}`, `Received ${iso(arrival).slice(0, 10)}`]
						: null,
			};
			scans.push(scan);
			mail.scan = { uuid: scan.id, status, category: type, label: scan.label };
		}
		mails.push(mail);
	}
	const shipments = [];
	const shipCount = Math.max(3, Math.floor(count / 50));
	for (let n = 0; n < shipCount; n++) {
		const type = ['shipment', 'return_to_sender', 'check_deposit', 'pickup'][n % 4];
		const items = mails.slice(n * 3, n * 3 + 1 + (n % 3));
		const status = ['shipped', 'in_progress', 'payment_failed', 'rejected'][
			Math.floor(random() * 4)
		];
		shipments.push({
			id: sessionUuid(random, session),
			type,
			status,
			item_count: items.length,
			created_on: iso(now - (shipCount - n) * 86_400_000),
			is_expedited: random() < 0.3,
			is_insured: n % 5 === 0,
			declared_value: Math.round(random() * 20000) / 100,
			mail_items: items.map((m) => ({
				id: m.id,
				mail_type: m.mail_type,
				sender_name: m.sender_name,
				arrival_date: m.arrival_date,
				envelope_image_url: m.envelope_image_url,
			})),
			tracking_number: status === 'shipped' ? `1Z${String(n).padStart(16, '0')}` : null,
			service_name: status === 'shipped' ? 'UPS Ground' : null,
			destination:
				type === 'shipment' || type === 'check_deposit'
					? {
							name: 'Ada Lovelace',
							line1: '12 Analytical Way',
							line2: null,
							city: 'London',
							state: null,
							postal_code: 'NW1 6XE',
							country: 'GB',
						}
					: null,
			requested_ship_date: null,
			deposit_check_slip_company_name: type === 'check_deposit' ? 'Ada Consulting LLC' : null,
			instructions: null,
			insured_amount: n % 5 === 0 ? 100 : null,
			reject_reason: status === 'rejected' ? 'Customs documents missing' : null,
		});
	}
	const addresses = [
		{
			id: uuidFrom(random),
			type: 'shipping',
			is_default: true,
			name: 'Ada Lovelace',
			line1: '12 Analytical Way',
			line2: null,
			line3: null,
			city: 'London',
			state: null,
			postal_code: 'NW1 6XE',
			country: 'GB',
			phone_number: '+442071234567',
			tax_id: null,
		},
		{
			id: uuidFrom(random),
			type: 'deposit',
			is_default: true,
			name: 'First Bank',
			line1: '1 Bank Plaza',
			line2: null,
			line3: null,
			city: 'New York',
			state: 'NY',
			postal_code: '10001',
			country: 'US',
			phone_number: '+12125550100',
			tax_id: null,
		},
	];
	const bankAccounts = [
		{
			id: uuidFrom(random),
			bank_name: 'First Bank',
			bank_state: 'NY',
			account_number: '000123456789',
		},
		{
			id: uuidFrom(random),
			bank_name: 'Credit Union West',
			bank_state: 'CA',
			account_number: '987650004321',
		},
	];
	const account = {
		id: uuidFrom(random),
		name: 'Ada Lovelace',
		email: 'ada@example.com',
		created_at: iso(now - 800 * 86_400_000),
		phone_number: '+442071234567',
		status: 'APPROVED',
		box_number: '4242',
	};
	return {
		mails,
		scans,
		shipments,
		folders,
		addresses,
		bankAccounts,
		account,
		nextMailId: 100000 + count + session * SESSION_MAIL_IDS,
		random,
		session,
		now,
	};
}

export function randomToken() {
	return crypto.randomBytes(12).toString('hex');
}
