// Start the simulator on its own: node test/simulator/cli.mjs [--port 4010] [--count 500] [--seed 42] [--letter-share 70]
import { startSimulator } from './server.mjs';

const arg = (name, fallback) => {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0
		? process.argv[index + 1]
		: (process.env[`SIM_${name.toUpperCase()}`] ?? fallback);
};
const sim = await startSimulator({
	port: Number(arg('port', 4010)),
	count: Number(arg('count', 500)),
	seed: Number(arg('seed', 42)),
	letterShare:
		arg('letter-share', undefined) === undefined ? undefined : Number(arg('letter-share')),
	log: console.error,
});
console.log(
	`Virtual Mailbox simulator on ${sim.url} (API key ${sim.apiKey}, webhook secret ${sim.webhookSecret})`,
);
const stop = () => sim.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
