// `npm run dev` keeps n8n's data in its home between runs (published workflows, their static data,
// n8n's deduplication store) but starts a fresh simulator each time. Each run is a new session of
// that home, counted in a file there, so the simulator's new mail and scan ids never repeat one an
// earlier run delivered (a repeat would be ignored as a copy of a delivery already handled). And
// the logging n8n needs for the simulator to follow its triggers, whatever the user has set.
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

/**
 * The logging settings n8n needs for the simulator to follow its triggers, given the user's `env`:
 * the trigger's lines are at info level on the console, so a quieter N8N_LOG_LEVEL or an
 * N8N_LOG_OUTPUT without console would hide them. Those are changed, and `say` tells the user.
 */
export function followableLogging(env, say) {
	const settings = { N8N_LOG_LEVEL: env.N8N_LOG_LEVEL === 'debug' ? 'debug' : 'info' };
	if (env.N8N_LOG_LEVEL && !['info', 'debug'].includes(env.N8N_LOG_LEVEL)) {
		say(
			`N8N_LOG_LEVEL=${env.N8N_LOG_LEVEL} would hide the lines the simulator follows the triggers by: n8n runs with info.`,
		);
	}
	const outputs = (env.N8N_LOG_OUTPUT ?? '')
		.split(',')
		.map((o) => o.trim())
		.filter(Boolean);
	if (outputs.length && !outputs.includes('console')) {
		settings.N8N_LOG_OUTPUT = [...outputs, 'console'].join(',');
		say(
			`N8N_LOG_OUTPUT=${env.N8N_LOG_OUTPUT} would hide the lines the simulator follows the triggers by: n8n runs with ${settings.N8N_LOG_OUTPUT}.`,
		);
	}
	return settings;
}
