// `npm run dev` keeps n8n's data in its home between runs (published workflows, their static data,
// n8n's deduplication store) but starts a fresh simulator each time. Each run is a new session of
// that home, counted in a file there, so the simulator's new mail and scan ids never repeat one an
// earlier run delivered (a repeat would be ignored as a copy of a delivery already handled).
import fs from 'node:fs';
import path from 'node:path';

/** The simulator of `npm run dev`: the same seeded mailbox every run. */
export const DEV_SIMULATOR = { count: 500, seed: 42 };

/** The options of this run's simulator in the dev home `home`: the next session of that home. */
export function devSimulatorOptions(home) {
	const file = path.join(home, 'simulator-session');
	const last = fs.existsSync(file) ? Number.parseInt(fs.readFileSync(file, 'utf8'), 10) || 0 : 0;
	const session = last + 1;
	fs.mkdirSync(home, { recursive: true });
	fs.writeFileSync(file, `${session}\n`);
	return { ...DEV_SIMULATOR, session };
}
