// A loopback TCP proxy that makes a round trip cost what it costs over the internet: every chunk
// is held back half a round trip in each direction (so a request and its response cost one round
// trip), and a new connection's first bytes wait one more round trip (the TCP handshake a real
// connection pays before it can send). Order within a connection is kept. No TLS: a TLS handshake
// would add one or two round trips more per new connection, which only widens the gap between a
// client that opens a connection per request and one that keeps it alive.
import net from 'node:net';

export async function startLatencyProxy({ target, rttMs = 40 }) {
	const { hostname, port: targetPort } = new URL(target);
	const half = rttMs / 2;
	const sockets = new Set();
	let connections = 0;
	/** Forward `from` → `to`, each chunk `delayMs` later (the first after `firstDelayMs`). */
	const pipe = (from, to, delayMs, firstDelayMs = delayMs) => {
		let first = true;
		from.on('data', (chunk) => {
			const wait = first ? firstDelayMs : delayMs;
			first = false;
			setTimeout(() => to.writable && to.write(chunk), wait);
		});
		from.on('end', () => setTimeout(() => to.end(), delayMs));
		from.on('error', () => to.destroy());
	};
	const server = net.createServer((client) => {
		connections++;
		const upstream = net.connect(Number(targetPort), hostname);
		for (const s of [client, upstream]) {
			sockets.add(s);
			s.on('close', () => sockets.delete(s));
		}
		pipe(client, upstream, half, half + rttMs);
		pipe(upstream, client, half);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		rttMs,
		/** Connections opened through the proxy so far. */
		connections: () => connections,
		async close() {
			for (const s of sockets) s.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
