// n8n-core and n8n-workflow of another n8n line (test/cores/<name>), installed outside the
// repository with atomic-install.mjs, so the unit tests run through that line's execution code too.
// The package's built files are copied beside that install, so the nodes' own
// require('n8n-workflow') gets that line's n8n-workflow, as inside a real n8n of that line.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultLog, installOnce, npmInstall, RUNTIME_CACHE } from './atomic-install.mjs';

const CORES_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../cores');
export const CORE_LINES = fs.readdirSync(CORES_SOURCE).sort();

export function describeCoreLine(name) {
	const source = path.join(CORES_SOURCE, name);
	if (!fs.existsSync(path.join(source, 'package.json')))
		throw new Error(
			`Unknown n8n-core line "${name}" (VMB_N8N_CORE): test/cores has ${CORE_LINES.join(', ')}`,
		);
	const dir = path.join(RUNTIME_CACHE, name);
	return { name, source, dir, packageDir: path.join(dir, 'package') };
}

export async function ensureCoreLine(name, { log = defaultLog } = {}) {
	const line = describeCoreLine(name);
	await installOnce({
		source: line.source,
		dir: line.dir,
		what: name,
		log,
		build: async (partial, elapsed) => {
			log(`Installing ${name} into ${line.dir} (once; about a minute)…`);
			const added = await npmInstall(partial, log);
			log(`  ${added} packages installed (${elapsed()}); verifying…`);
			const version = createRequire(path.join(partial, 'package.json'))(
				'n8n-core/package.json',
			).version;
			if (!name.endsWith(version.split('.').slice(0, 2).join('.')))
				throw new Error(`n8n-core ${version} installed for ${name}`);
		},
	});
	return line;
}

/** A copy of the built package (package.json and dist) beside the line's install; returns its folder. */
export function stagePackage(line, root) {
	fs.rmSync(line.packageDir, { recursive: true, force: true });
	fs.mkdirSync(line.packageDir, { recursive: true });
	fs.copyFileSync(path.join(root, 'package.json'), path.join(line.packageDir, 'package.json'));
	fs.cpSync(path.join(root, 'dist'), path.join(line.packageDir, 'dist'), { recursive: true });
	return line.packageDir;
}
