// `node test/setup/lock-urls.mjs <package-lock.json>…` writes each registry package's tarball URL
// (`resolved`) into a lock that lacks them (npm leaves them out with omit-lockfile-registry-resolved,
// and does not add them to an existing lock), so an install fetches tarballs without asking the
// registry for each package's metadata first. test/unit/package/pinned-locks.test.mjs checks every lock.
import fs from 'node:fs';

for (const file of process.argv.slice(2)) {
	const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
	let added = 0;
	for (const [key, entry] of Object.entries(lock.packages)) {
		if (!key || entry.link || entry.resolved || !entry.integrity) continue;
		const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
		const url = `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
		// Where npm writes it: after version, before integrity.
		lock.packages[key] = Object.fromEntries(
			Object.entries(entry).flatMap((field) =>
				field[0] === 'integrity' ? [['resolved', url], field] : [field],
			),
		);
		added++;
	}
	fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
	process.stdout.write(`${file}: ${added} tarball URLs added\n`);
}
