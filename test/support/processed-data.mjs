// The model of n8n's deduplication store that every test needing one uses: the processed_data
// table as Postgres runs it, and n8n's DeduplicationHelper over it (n8n/dist/deduplication/
// deduplication-helper.js, the same in n8n 1.x and 2.x). The claim tests run it in virtual time
// (deduplication-store.mjs); the harness runs it in real time behind n8n's own
// DataDeduplicationService, for the nodes run through n8n's execution code.
import { createHash } from 'node:crypto';

/** n8n's value hash (DeduplicationHelper.createValueHash): the store keeps md5 hashes, not values. */
export const hashOf = (value) => createHash('md5').update(String(value)).digest('base64');
/** n8n's DeduplicationError for a row saved in another mode (validateMode). */
export const MODE_MISMATCH =
	'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter. Try ’Clean Database’ operation to reset.';
/** The contexts of one workflow's rows: '' for scope workflow (the claim's lock), 'n:<node id>' for scope node. */
export const WORKFLOW = '';
export const NODE_ID = 'trigger-node';
export const NODE = `n:${NODE_ID}`;

/**
 * n8n's processed_data table as Postgres runs it: one row per context, PRIMARY KEY (workflowId,
 * context). A statement takes a round trip of 1–3 ms (`random`; 1 ms with the default; or
 * `roundTripMs()`). `clock` gives `wait(ms)`: virtual time, or real time in the harness. `writeMs()`
 * is the time a write takes in the database (a slow disk, a BEFORE INSERT OR UPDATE trigger's
 * pg_sleep); a caller may give its own for one write. An UPDATE spends it holding the row lock; an
 * INSERT spends it before its primary key check, which fails (unique violation) when the row is
 * there then, and waits for an insert of the same row that is between its check and its commit. An
 * UPDATE targets the row its statement sees when it starts, waits for its lock and writes nothing if
 * that row was deleted meanwhile; a DELETE waits for the lock and is atomic. Reads see committed rows
 * only. `enforcePrimaryKey: false` is a mutant: an insert replaces the row. `log` gets every
 * committed change (and every write that failed or changed nothing).
 */
export function processedDataTable({
	clock,
	random = () => 0,
	roundTripMs = () => 1 + Math.floor(random() * 3),
	writeMs = () => 5,
	enforcePrimaryKey = true,
	log = () => undefined,
}) {
	const rows = new Map();
	const committing = new Map();
	let generation = 0;
	const roundTrip = () => clock.wait(roundTripMs());
	const lockRow = async (row) => {
		const previous = row.lockTail;
		let release;
		row.lockTail = new Promise((resolve) => (release = resolve));
		await previous;
		return release;
	};
	return {
		rows,
		/** Seeds a row as another node (or a stopped process) left it. */
		put(context, value, by = 'other node') {
			rows.set(context, {
				generation: ++generation,
				value: structuredClone(value),
				by,
				lockTail: Promise.resolve(),
			});
		},
		/** The row's stored data (hashes in mode "entries"), or undefined when there is no row. */
		data(context) {
			return rows.get(context)?.value.data;
		},
		async select(context) {
			await roundTrip();
			const row = rows.get(context);
			return row && { value: structuredClone(row.value) };
		},
		async insert(context, value, by, ms) {
			await clock.wait(ms ?? writeMs());
			for (;;) {
				const other = committing.get(context);
				if (!other) break;
				await other;
			}
			if (rows.has(context) && enforcePrimaryKey) {
				log({ by, op: 'insert', context, failed: 'unique violation' });
				throw new Error(
					`duplicate key value violates unique constraint "PK_processed_data" (context '${context}')`,
				);
			}
			let commit;
			committing.set(context, new Promise((resolve) => (commit = resolve)));
			await roundTrip();
			const before = rows.get(context)?.value;
			rows.set(context, {
				generation: ++generation,
				value: structuredClone(value),
				by,
				lockTail: Promise.resolve(),
			});
			committing.delete(context);
			commit();
			log({ by, op: 'insert', context, before, after: value });
		},
		async update(context, value, by, ms) {
			await roundTrip();
			const target = rows.get(context);
			if (!target) return log({ by, op: 'update', context, failed: 'no row' });
			const release = await lockRow(target);
			try {
				if (rows.get(context) !== target)
					return log({ by, op: 'update', context, failed: 'row deleted meanwhile' });
				await clock.wait(ms ?? writeMs());
				const before = target.value;
				target.value = structuredClone(value);
				log({ by, op: 'update', context, before, after: value });
			} finally {
				release();
			}
		},
		async delete(context, by) {
			await roundTrip();
			const target = rows.get(context);
			if (!target) return;
			const release = await lockRow(target);
			if (rows.get(context) === target) {
				rows.delete(context);
				log({ by, op: 'delete', context, before: target.value, insertedBy: target.by });
			}
			release();
		},
	};
}

/**
 * n8n's deduplication helpers (DeduplicationHelper: modes "entries", "latestIncrementalKey" and
 * "latestDate") for one process: each reads the row (findOne), then writes what it computed from
 * that read. What a process does to its calls, all optional:
 * - `name`: who wrote, in the table's log;
 * - `contextOf(scope)`: the row of a scope (default: WORKFLOW, or NODE for scope node);
 * - `busy()`: awaited before each call reaches the store (an event loop busy with other executions,
 *   a wait for a pool connection); `gap()`: awaited between a read and its write, outside any lock;
 * - `writeMs()`: this process's time per write, instead of the table's;
 * - `before(op, n)`: called with the call's name ('record-node', 'record-workflow', 'count',
 *   'delete', 'remove') and its number per name, before the call; a promise it returns is awaited
 *   (a call that answers late or never), and it may throw (a call that fails before its statement);
 * - `after(op, n)`: awaited after the call's write, before it answers; it may throw (an error
 *   reported after the statement committed);
 * - `fault(op, scope)`: { when: 'before' | 'after' } to throw before the statement or after it
 *   committed, { delay: promise } to wait before it, or undefined (op: 'record', 'count', 'delete', 'remove').
 * `calls` counts the calls by name.
 */
export function deduplicationHelpers(table, proc = {}) {
	const calls = {};
	const contextOf = proc.contextOf ?? ((scope) => (scope === 'node' ? NODE : WORKFLOW));
	const writeMs = () => proc.writeMs?.();
	const gap = async () => await proc.gap?.();
	const call = async (op, scope, body) => {
		const name = op === 'record' ? `record-${scope}` : op;
		const n = (calls[name] = (calls[name] ?? 0) + 1);
		const held = proc.before?.(name, n);
		if (held) await held;
		const fault = proc.fault?.(op, scope);
		if (fault?.delay) await fault.delay;
		await proc.busy?.();
		if (fault?.when === 'before')
			throw new Error(`Connection terminated unexpectedly (${op}, before the statement)`);
		const result = await body(contextOf(scope));
		if (proc.after) await proc.after(name, n);
		if (fault?.when === 'after')
			throw new Error(`Connection terminated unexpectedly (${op}, after the statement committed)`);
		return result;
	};
	return {
		calls,
		checkProcessedAndRecord: (items, scope, options) =>
			call('record', scope, async (context) => {
				const found = await table.select(context);
				if (found && found.value.mode !== options.mode) throw new Error(MODE_MISMATCH);
				await gap();
				const latest = ['latestIncrementalKey', 'latestDate'].includes(options.mode);
				if (!found) {
					let data;
					if (latest) data = [...items].sort((a, b) => Number(a) - Number(b)).pop();
					else {
						data = items.map(hashOf);
						if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
					}
					await table.insert(context, { mode: options.mode, data }, proc.name, writeMs());
					return { new: items, processed: [] };
				}
				const result = { new: [], processed: [] };
				if (latest) {
					for (const item of items)
						(Number(item) > Number(found.value.data) ? result.new : result.processed).push(item);
					found.value.data = String(Math.max(Number(found.value.data), ...items.map(Number)));
					await table.update(context, found.value, proc.name, writeMs());
					return result;
				}
				if (!Array.isArray(found.value.data)) return result;
				const seen = new Set(found.value.data);
				items.map(hashOf).forEach((hash, index) => {
					if (seen.has(hash)) result.processed.push(items[index]);
					else {
						result.new.push(items[index]);
						found.value.data.push(hash);
					}
				});
				if (options.maxEntries)
					found.value.data.splice(0, found.value.data.length - options.maxEntries);
				await table.update(context, found.value, proc.name, writeMs());
				return result;
			}),
		getProcessedDataCount: (scope, options) =>
			call('count', scope, async (context) => {
				const found = await table.select(context);
				return options.mode === 'entries' && found && Array.isArray(found.value.data)
					? found.value.data.length
					: 0;
			}),
		clearAllProcessedItems: (scope) =>
			call('delete', scope, async (context) => await table.delete(context, proc.name)),
		removeProcessed: (items, scope) =>
			call('remove', scope, async (context) => {
				const found = await table.select(context);
				if (!found || !Array.isArray(found.value.data)) return;
				await gap();
				for (const hash of items.map(hashOf)) {
					const index = found.value.data.indexOf(hash);
					if (index !== -1) found.value.data.splice(index, 1);
				}
				await table.update(context, found.value, proc.name, writeMs());
			}),
	};
}
