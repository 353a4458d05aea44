// A plain reading of the Poll Trigger's contract (docs/poll-trigger.md), written straight from its
// sentences with none of the node's concerns (n8n, retries, binary data, dividing deep reads), to
// check the model checker's oracle: run against it, the oracle must find nothing (apart from the
// depth limit, which this reading does not implement: histories for it have no bursts past
// 10,000). `mutant` switches one rule off, and the oracle must then find the broken property.
import { DEPTH_LIMIT, LATE_WINDOW_MS, MAX_EMIT_PER_POLL, MAX_REMEMBERED } from './poll-model.mjs';

const inFlight = new Set();
const keyOf = (m) => [Date.parse(m.arrival_date), Number(m.id)];
const cmp = (a, b) => a[0] - b[0] || a[1] - b[1];

export function referencePoll({ baseUrl, apiKey, mutant }) {
	const get = async (path, query) => {
		const url = new URL(`${baseUrl}${path}`);
		for (const [k, v] of Object.entries(query))
			for (const one of [].concat(v)) if (one !== undefined) url.searchParams.append(k, one);
		const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
		if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
		return await response.json();
	};
	/**
	 * Newest first, while `more(item)` holds, at most `most` items (cursors within this call only).
	 * Mail without an arrival date is skipped (docs/poll-trigger.md, limit 6): it neither ends nor counts.
	 */
	const read = async (path, query, more, most = Infinity) => {
		const out = [];
		let cursor;
		do {
			const page = await get(path, { ...query, limit: 100, cursor });
			for (const item of page.data) {
				if (path === '/v1/mails' && !item.arrival_date) continue;
				if (!more(item) || out.length >= most) return out;
				out.push(item);
			}
			cursor = page.next_cursor;
		} while (cursor);
		return out;
	};

	async function newMail(state, filters) {
		const floor = state.floor;
		const recorded = new Set(Object.keys(state.recorded));
		const query = {
			sort: 'newest',
			status: filters.status,
			mail_type: filters.mailType,
			scan_status: filters.scanStatus,
		};
		const listed = await read(
			'/v1/mails',
			query,
			(m) => !floor || cmp(keyOf(m), floor) > 0,
			DEPTH_LIMIT,
		);
		// (An offset cursor lists an item twice when mail arrives above it during the read.)
		const unique = [...new Map(listed.map((m) => [m.id, m])).values()];
		const fresh = unique
			.filter((m) => !recorded.has(m.id))
			.reverse()
			.slice(0, mutant === 'newest-first' ? undefined : MAX_EMIT_PER_POLL);
		const emitted = mutant === 'newest-first' ? fresh.slice(-MAX_EMIT_PER_POLL) : fresh;
		for (const m of emitted) state.recorded[m.id] = keyOf(m);
		raiseFloor(state);
		return emitted.map((m) => ({ json: { event: 'new-mail', ...m } }));
	}

	function raiseFloor(state, atOnce = false) {
		const keys = Object.values(state.recorded).sort((a, b) => cmp(b, a));
		if (!keys.length) return;
		// The 1,000-remembered part lags one poll (docs/poll-trigger.md, the floor); priming applies it at once.
		const remembered = keys[MAX_REMEMBERED - 1];
		const candidates = [[keys[0][0] - LATE_WINDOW_MS, -1], atOnce ? remembered : state.remembered];
		state.remembered = remembered ?? null;
		for (const c of candidates) if (c && (!state.floor || cmp(c, state.floor) > 0)) state.floor = c;
		for (const [id, key] of Object.entries(state.recorded))
			if (cmp(key, state.floor) <= 0) delete state.recorded[id];
	}

	async function primeMail(state) {
		state.recorded = {};
		state.floor = null;
		let newest;
		const listed = await read(
			'/v1/mails',
			{ sort: 'newest' },
			(m) => (newest ??= keyOf(m)[0]) - keyOf(m)[0] <= LATE_WINDOW_MS,
			MAX_REMEMBERED,
		);
		for (const m of listed) state.recorded[m.id] = keyOf(m);
		raiseFloor(state, true);
	}

	const TYPE = { 'scan-completed': 'scan', 'open-completed': 'open' };
	async function completions(state, event, priming) {
		const scans = await read('/v1/scans', { sort: 'newest', type: TYPE[event] }, () => true);
		const out = [];
		if (priming) {
			state.since = scans.reduce((max, s) => (s.created_at > max ? s.created_at : max), '');
			state.tracked = {};
			state.emitted = {};
		}
		for (const s of scans) {
			const key = `${s.id}@${s.status_updated_at}`;
			// Not finished: in process, restoring, or a status the spec does not list.
			const status = String(s.status).toUpperCase();
			const unfinished = !['COMPLETED', 'CANCELLED', 'REJECTED', 'DELETED'].includes(status);
			if (status === 'RESTORING' ? mutant !== 'no-restore' : unfinished) state.tracked[s.id] = true;
			else if (
				status === 'COMPLETED' &&
				!priming &&
				(state.tracked[s.id] || s.created_at > state.since) &&
				!state.emitted[key]
			) {
				state.emitted[key] = true;
				delete state.tracked[s.id];
				out.push({ json: { event, ...s } });
			}
		}
		return out;
	}

	return async ({ parameters, staticData, workflowId, mode }) => {
		if (mode === 'manual') return { result: null };
		const lock = `${workflowId}|poll`;
		if (inFlight.has(lock) && mutant !== 'no-lock') return { result: null };
		inFlight.add(lock);
		try {
			const state = (staticData['node:Virtual Mailbox'] ??= {});
			const { event, filters } = parameters;
			const fingerprint = JSON.stringify([
				event,
				...(event === 'new-mail'
					? ['status', 'mailType', 'scanStatus'].map((k) => [...(filters[k] ?? [])].sort())
					: []),
			]);
			if (state.fingerprint !== fingerprint && mutant !== 'no-fingerprint') {
				// Written only once the priming read succeeded.
				const primed = {};
				if (event === 'new-mail') await primeMail(primed);
				else await completions(primed, event, true);
				for (const k of Object.keys(state)) delete state[k];
				Object.assign(state, primed, { fingerprint });
				return { result: null };
			}
			state.fingerprint ??= fingerprint;
			if (event !== 'new-mail' && !state.tracked) await completions(state, event, true);
			if (event === 'new-mail' && !state.recorded) await primeMail(state);
			// Work on a copy: a failing read leaves the state as it was.
			const next = JSON.parse(JSON.stringify(state));
			const items =
				event === 'new-mail' ? await newMail(next, filters) : await completions(next, event, false);
			Object.assign(state, next);
			return { result: items.length ? [items] : null };
		} finally {
			inFlight.delete(lock);
		}
	};
}
