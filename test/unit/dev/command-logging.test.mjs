// The simulator of `npm run dev` subscribes the triggers n8n runs from their lines in n8n's console
// output, at info level (follow-triggers.mjs). A user's own N8N_LOG_LEVEL or N8N_LOG_OUTPUT must
// not turn that off without a word: the dev command (both modes) runs n8n with what it needs and
// says what it changed.
import { expect, test } from 'vitest';
import { followableLogging } from '../../simulator/dev-session.mjs';

const run = (env) => {
	const said = [];
	return { settings: followableLogging(env, (line) => said.push(line)), said };
};

test("n8n's defaults: info on the console, nothing said", () => {
	expect(run({})).toEqual({ settings: { N8N_LOG_LEVEL: 'info' }, said: [] });
	expect(run({ N8N_LOG_LEVEL: 'debug', N8N_LOG_OUTPUT: 'console,file' })).toEqual({
		settings: { N8N_LOG_LEVEL: 'debug' },
		said: [],
	});
});

test('a log level above info is raised to info, and the dev command says so', () => {
	const { settings, said } = run({ N8N_LOG_LEVEL: 'warn' });
	expect(settings).toEqual({ N8N_LOG_LEVEL: 'info' });
	expect(said).toEqual([
		'N8N_LOG_LEVEL=warn would hide the lines the simulator follows the triggers by: n8n runs with info.',
	]);
});

test('a log output without the console gets the console added, and the dev command says so', () => {
	const { settings, said } = run({ N8N_LOG_OUTPUT: 'file' });
	expect(settings).toEqual({ N8N_LOG_LEVEL: 'info', N8N_LOG_OUTPUT: 'file,console' });
	expect(said).toEqual([
		'N8N_LOG_OUTPUT=file would hide the lines the simulator follows the triggers by: n8n runs with file,console.',
	]);
});
