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

/**
 * The same proxy in a process of its own: the internet's delay costs the client no CPU, so the
 * proxy's timers and copying must not run on the event loop of the client being measured.
 */
export async function startLatencyProxyProcess({ target, rttMs = 40 }) {
	const { fork } = await import('node:child_process');
	const child = fork(new URL(import.meta.url).pathname, ['--serve', target, String(rttMs)], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const ask = (message) =>
		new Promise((resolve) => {
			child.once('message', resolve);
			child.send(message);
		});
	const { url } = await new Promise((resolve, reject) => {
		child.once('message', resolve);
		child.once('exit', (code) => reject(new Error(`latency proxy exited ${code}`)));
	});
	return {
		url,
		rttMs,
		/** Connections opened through the proxy so far. */
		connections: async () => (await ask('connections')).connections,
		close: () =>
			new Promise((resolve) => {
				child.once('exit', resolve);
				child.kill('SIGTERM');
			}),
	};
}

if (process.argv[2] === '--serve') {
	const proxy = await startLatencyProxy({
		target: process.argv[3],
		rttMs: Number(process.argv[4]),
	});
	process.on(
		'message',
		(message) => message === 'connections' && process.send({ connections: proxy.connections() }),
	);
	process.on('SIGTERM', () => proxy.close().then(() => process.exit(0)));
	process.send({ url: proxy.url });
}
