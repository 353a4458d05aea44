// Credentials and workflows written into a real n8n's database (SQLite, or queue mode's
// PostgreSQL) as `n8n import:credentials`, `import:workflow` and `publish:workflow` write them, in
// one transaction, stopped or running. Each of those commands starts n8n's whole CLI: 5-13 CPU
// seconds on a 2-core machine, about 450 CPU seconds over a CI run before this.
//
// Run as a script by the runtime's own Node (n8n's sqlite3 crashes in the test runner's Node 20):
// it reads one request from stdin and prints its result as JSON.
import { execFile } from 'node:child_process';
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(import.meta.url);

/**
 * n8n's credential encryption (n8n-core's Cipher, the legacy format n8n 2.x still reads without a
 * key prefix): AES-256-CBC, key and IV from MD5 over the instance key and a random salt.
 */
function encryptCredentialData(data, encryptionKey) {
	const salt = randomBytes(8);
	const password = Buffer.concat([Buffer.from(encryptionKey, 'binary'), salt]);
	const hash1 = createHash('md5').update(password).digest();
	const hash2 = createHash('md5')
		.update(Buffer.concat([hash1, password]))
		.digest();
	const iv = createHash('md5')
		.update(Buffer.concat([hash2, password]))
		.digest();
	const cipher = createCipheriv('aes-256-cbc', Buffer.concat([hash1, hash2]), iv);
	const encrypted = Buffer.concat([cipher.update(JSON.stringify(data)), cipher.final()]);
	return Buffer.concat([Buffer.from('Salted__'), salt, encrypted]).toString('base64');
}

/** Where the instance's database is, from the environment startN8n gives n8n. */
function databaseOf(env) {
	return env.DB_TYPE === 'postgresdb'
		? {
				postgres: {
					host: env.DB_POSTGRESDB_HOST,
					port: Number(env.DB_POSTGRESDB_PORT),
					user: env.DB_POSTGRESDB_USER,
					database: env.DB_POSTGRESDB_DATABASE,
				},
			}
		: { sqlite: path.join(env.N8N_USER_FOLDER, '.n8n', 'database.sqlite') };
}

async function runInRuntime(runtime, request) {
	return await new Promise((resolve, reject) => {
		const child = execFile(
			runtime.node,
			[SCRIPT],
			{ maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
			(error, stdout, stderr) => {
				if (error) reject(new Error(`n8n database: ${stderr.trim() || error.message}`));
				else resolve(JSON.parse(stdout));
			},
		);
		child.stdin.end(JSON.stringify({ runtimeDir: runtime.dir, ...request }));
	});
}

/**
 * Writes `credentials` (data in clear, encrypted here) and `workflows` into the database of the
 * n8n that `env` describes (migrated: see startN8n), owned by the owner's personal project, as
 * n8n's import does: a new version of each workflow, recorded in its history. `activate`: the
 * workflows marked `active` are published (2.x) or set active (1.x), which takes effect when n8n
 * starts; otherwise every workflow is stored inactive, as the import leaves it.
 */
export async function writeToDatabase(
	{ runtime, env },
	{ credentials = [], workflows = [], activate = false },
) {
	if (!credentials.length && !workflows.length) return;
	await runInRuntime(runtime, {
		...databaseOf(env),
		credentials: credentials.map(({ id, name, type, data }) => ({
			id,
			name,
			type,
			data: typeof data === 'string' ? data : encryptCredentialData(data, env.N8N_ENCRYPTION_KEY),
		})),
		workflows: workflows.map((w) => ({
			...w,
			nodes: w.nodes.map((node) => {
				for (const [type, credential] of Object.entries(node.credentials ?? {}))
					if (!credential?.id)
						throw new Error(`workflow ${w.id}, node "${node.name}": credential ${type} has no id`);
				return { ...node, id: node.id ?? randomUUID() };
			}),
			active: activate && Boolean(w.active),
			versionId: randomUUID(),
		})),
	});
}

/** Rows of one SELECT on the database of the n8n that `env` describes. */
export async function queryDatabase({ runtime, env }, sql, params = []) {
	return await runInRuntime(runtime, { ...databaseOf(env), query: { sql, params } });
}

const json = (value) => (value === undefined || value === null ? null : JSON.stringify(value));

/** The statements of one write; `?` placeholders, booleans as literals both databases read. */
function statements({ credentials, workflows }, owner) {
	const list = [];
	for (const c of credentials)
		list.push(
			[
				`INSERT INTO credentials_entity (id, name, type, data) VALUES (?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, data = excluded.data`,
				[c.id, c.name, c.type, c.data],
			],
			[
				`INSERT INTO shared_credentials ("credentialsId", "projectId", role)
				VALUES (?, ?, 'credential:owner') ON CONFLICT DO NOTHING`,
				[c.id, owner],
			],
		);
	for (const w of workflows) {
		const fields = [
			w.name,
			json(w.nodes),
			json(w.connections),
			json(w.settings),
			json(w.staticData),
			json(w.pinData),
			json(w.meta),
			w.versionId,
		];
		// As n8n's import (TypeORM's upsert): only the columns the file gives are overwritten; one
		// it leaves out keeps what n8n holds, such as a trigger's static data.
		const given = ['settings', '"staticData"', '"pinData"', 'meta']
			.filter((column) => w[column.replaceAll('"', '')] !== undefined)
			.map((column) => ` ${column} = excluded.${column},`)
			.join('');
		list.push(
			[
				`INSERT INTO workflow_entity
				(id, name, nodes, connections, settings, "staticData", "pinData", meta, "versionId", active, "activeVersionId")
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, false, NULL)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, nodes = excluded.nodes,
				connections = excluded.connections,${given}
				"versionId" = excluded."versionId", active = false, "activeVersionId" = NULL`,
				[w.id, ...fields],
			],
			[
				`INSERT INTO shared_workflow ("workflowId", "projectId", role)
				VALUES (?, ?, 'workflow:owner') ON CONFLICT DO NOTHING`,
				[w.id, owner],
			],
			[
				`INSERT INTO workflow_history ("versionId", "workflowId", authors, nodes, connections)
				VALUES (?, ?, 'import', ?, ?)`,
				[w.versionId, w.id, json(w.nodes), json(w.connections)],
			],
		);
		// What publish:workflow (2.x) and update:workflow --active=true (1.x) both set.
		if (w.active)
			list.push([
				`UPDATE workflow_entity SET active = true, "activeVersionId" = "versionId" WHERE id = ?`,
				[w.id],
			]);
	}
	return list;
}

const OWNER_PROJECT = `SELECT pr."projectId" AS id FROM project_relation pr
	JOIN "user" u ON u.id = pr."userId"
	WHERE u."roleSlug" = 'global:owner' AND pr.role = 'project:personalOwner'`;

/** One connection with `query(sql, params) → rows` over the runtime's own driver. */
async function connect(request) {
	const runtimeRequire = createRequire(path.join(request.runtimeDir, 'package.json'));
	if (request.postgres) {
		const { Client } = runtimeRequire('pg');
		const client = new Client(request.postgres);
		await client.connect();
		return {
			query: async (sql, params) => {
				let n = 0;
				return (
					await client.query(
						sql.replace(/\?/g, () => `$${++n}`),
						params,
					)
				).rows;
			},
			close: () => client.end(),
		};
	}
	const sqlite3 = runtimeRequire('sqlite3');
	const db = await new Promise((resolve, reject) => {
		const opened = new sqlite3.Database(request.sqlite, sqlite3.OPEN_READWRITE, (error) =>
			error ? reject(error) : resolve(opened),
		);
	});
	db.configure('busyTimeout', 60_000); // a running n8n may hold the write lock for a moment
	return {
		query: (sql, params) =>
			new Promise((resolve, reject) =>
				db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))),
			),
		close: () => new Promise((resolve) => db.close(resolve)),
	};
}

async function main() {
	let input = '';
	for await (const chunk of process.stdin) input += chunk;
	const request = JSON.parse(input);
	const db = await connect(request);
	try {
		if (request.query) {
			process.stdout.write(JSON.stringify(await db.query(request.query.sql, request.query.params)));
			return;
		}
		const owners = await db.query(OWNER_PROJECT, []);
		if (owners.length !== 1)
			throw new Error(`expected one owner's personal project, found ${owners.length}`);
		await db.query(request.postgres ? 'BEGIN' : 'BEGIN IMMEDIATE', []);
		try {
			for (const [sql, params] of statements(request, owners[0].id)) await db.query(sql, params);
			await db.query('COMMIT', []);
		} catch (error) {
			await db.query('ROLLBACK', []).catch(() => {});
			throw error;
		}
		process.stdout.write('true');
	} finally {
		await db.close();
	}
}

if (process.argv[1] === SCRIPT)
	main().catch((error) => {
		process.stderr.write(`${error.stack ?? error}\n`);
		process.exit(1);
	});

/** n8n's migrations on the database `env` describes: any CLI command runs them first. */
async function migrate(runtime, env) {
	const input = path.join(env.N8N_USER_FOLDER, 'import-nothing.json');
	fs.mkdirSync(env.N8N_USER_FOLDER, { recursive: true });
	fs.writeFileSync(input, '[]');
	try {
		await new Promise((resolve, reject) =>
			execFile(
				runtime.node,
				[runtime.n8n, 'import:credentials', `--input=${input}`],
				{ env, timeout: 180_000, maxBuffer: 32 << 20 },
				(error, stdout, stderr) =>
					error ? reject(new Error(`n8n's migrations failed: ${stderr.slice(-3000)}`)) : resolve(),
			),
		);
	} finally {
		fs.rmSync(input, { force: true });
	}
}

/**
 * The instance's database, migrated, before credentials or workflows are written: a copy of a
 * SQLite database n8n migrated once per runtime and encryption key (kept in `cacheDir`), or
 * PostgreSQL migrated in place.
 */
export async function prepareDatabase({ runtime, env }, cacheDir) {
	if (env.DB_TYPE === 'postgresdb') {
		const [{ table }] = await queryDatabase(
			{ runtime, env },
			`SELECT to_regclass('migrations') AS "table"`,
		);
		if (!table) await migrate(runtime, env);
		return;
	}
	const file = databaseOf(env).sqlite;
	if (fs.existsSync(file)) return;
	const key = createHash('sha256').update(env.N8N_ENCRYPTION_KEY).digest('hex').slice(0, 12);
	const template = path.join(cacheDir, `${runtime.name}-${key}.sqlite`);
	if (!fs.existsSync(template)) {
		fs.mkdirSync(cacheDir, { recursive: true });
		const folder = fs.mkdtempSync(path.join(cacheDir, 'making-'));
		try {
			const making = { ...env, N8N_USER_FOLDER: folder };
			await migrate(runtime, making);
			// n8n leaves its write-ahead log behind: into the database file with it, then copy that.
			await queryDatabase({ runtime, env: making }, 'PRAGMA wal_checkpoint(TRUNCATE)');
			const made = path.join(folder, '.n8n', 'database.sqlite');
			if (fs.existsSync(`${made}-wal`) && fs.statSync(`${made}-wal`).size > 0)
				throw new Error(`the write-ahead log beside ${made} is not empty after a checkpoint`);
			fs.renameSync(made, template); // atomic: a process making it at the same time loses nothing
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	}
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.copyFileSync(template, file);
}
