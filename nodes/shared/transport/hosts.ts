/**
 * Pure: which hosts a file link may reach, taken as the WHATWG URL parser (n8n's) leaves them: one
 * spelling per IPv4 or IPv6 address. Names are not resolved (nodes may not use DNS); n8n's own
 * SSRF protection checks the address a name resolves to.
 */

/** IPv4 ranges that are not public: [base address, prefix length]. */
const PRIVATE_V4: ReadonlyArray<[string, number]> = [
	['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
	['10.0.0.0', 8],
	['100.64.0.0', 10], // carrier-grade NAT
	['127.0.0.0', 8], // loopback
	['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
	['172.16.0.0', 12],
	['192.0.0.0', 24], // IETF protocol assignments
	['192.0.2.0', 24], // documentation
	['192.168.0.0', 16],
	['198.18.0.0', 15], // benchmarking
	['198.51.100.0', 24], // documentation
	['203.0.113.0', 24], // documentation
	['224.0.0.0', 3], // multicast, reserved and broadcast (224/4, 240/4)
];

const v4Number = (quad: string): number =>
	quad.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const inV4Range = (address: number, [base, bits]: [string, number]) =>
	Math.floor(address / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits));

function isPrivateV4(address: number): boolean {
	return PRIVATE_V4.some((range) => inV4Range(address, range));
}

/** The eight 16-bit groups of an IPv6 address in URL-parser form, or undefined. */
function v6Groups(text: string): number[] | undefined {
	let host = text;
	const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(host);
	if (dotted) {
		const n = v4Number(dotted[2]);
		host = `${dotted[1]}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
	}
	const halves = host.split('::');
	if (halves.length > 2) return undefined;
	const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
	const head = part(halves[0]);
	const tail = halves.length === 2 ? part(halves[1]) : [];
	const fill = 8 - head.length - tail.length;
	if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
	const groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
	return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const embeddedV4 = (high: number, low: number) => high * 65536 + low;

function isPrivateV6(g: number[]): boolean {
	const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
	// ::/128 unspecified, ::1 loopback, ::a.b.c.d (IPv4-compatible, deprecated): all of ::/96
	if (zeros(0, 6)) return g[6] === 0 || isPrivateV4(embeddedV4(g[6], g[7]));
	// ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated): the IPv4 address decides
	if (zeros(0, 5) && g[5] === 0xffff) return isPrivateV4(embeddedV4(g[6], g[7]));
	if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return isPrivateV4(embeddedV4(g[6], g[7]));
	// 64:ff9b::/96 (NAT64, well-known prefix): the IPv4 address decides; 64:ff9b:1::/48 is local-use
	if (g[0] === 0x64 && g[1] === 0xff9b) return g[2] === 1 || isPrivateV4(embeddedV4(g[6], g[7]));
	// 2002::/16 (6to4): the IPv4 address in groups 1–2 decides
	if (g[0] === 0x2002) return isPrivateV4(embeddedV4(g[1], g[2]));
	if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8)) return true; // Teredo, documentation
	if (g[0] === 0x100 && zeros(1, 4)) return true; // 100::/64 discard-only
	if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
	// fe80::/10 link-local, fec0::/10 site-local
	if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return true;
	return (g[0] & 0xff00) === 0xff00; // ff00::/8 multicast
}

/** Pure: a host as the URL parser and DNS see it: lower case, no brackets, no trailing dots. */
export function canonicalHost(hostname: string): string {
	let host = hostname
		.trim()
		.toLowerCase()
		.replace(/^\[|\]$/g, '');
	if (!host.includes(':')) {
		try {
			// The URL parser normalizes IPv4 spellings (decimal, octal, hex, short forms).
			host = new URL(`http://${host}/`).hostname;
		} catch {
			return host;
		}
	}
	return host.replace(/\.+$/, '');
}

/**
 * Pure: whether a host name or IP literal (any spelling) is loopback, private, link-local,
 * unspecified or otherwise not a public address. Names other than `localhost` are not resolved.
 */
export function isPrivateHost(hostname: string): boolean {
	const host = canonicalHost(hostname);
	if (host === '' || host === 'localhost' || host.endsWith('.localhost')) return true;
	if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return isPrivateV4(v4Number(host));
	if (host.includes(':')) {
		const groups = v6Groups(host.replace(/%.*$/, ''));
		return groups === undefined || isPrivateV6(groups);
	}
	return false;
}
