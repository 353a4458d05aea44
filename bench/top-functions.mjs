// Summarise a .cpuprofile: self time by function and by package.
import fs from 'node:fs';
const profile = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const fn = new Map();
const pkg = new Map();
for (const [id, us] of self) {
	const { functionName, url, lineNumber } = byId.get(id).callFrame;
	const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/main\//, '')}:${lineNumber}`;
	fn.set(key, (fn.get(key) ?? 0) + us);
	const p = url.includes('node_modules/')
		? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
		: url.startsWith('node:')
			? 'node internals'
			: url
				? 'project'
				: '(vm/gc/idle)';
	pkg.set(p, (pkg.get(p) ?? 0) + us);
}
const top = (m, n) =>
	[...m]
		.sort((a, b) => b[1] - a[1])
		.slice(0, n)
		.map(([k, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`)
		.join('\n');
console.log('By package:\n' + top(pkg, 12) + '\n\nBy function:\n' + top(fn, 25));
