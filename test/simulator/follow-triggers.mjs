// `npm run dev`: the simulator subscribes, by itself, the Virtual Mailbox Triggers n8n runs, as a
// user does in the service's dashboard. n8n keeps its listening (Test URL) webhooks in its cache,
// which no REST endpoint lists, and its database has only the active ones; but it calls the
// trigger's activation (create) for both, and the trigger logs the URL to register and its events
// there, and the URL again when it is deactivated (a test event received or timed out, the workflow
// unpublished). This reads those lines from n8n's output and replaces the subscriptions of each
// URL: one per event while the trigger is active or listening, none once it is not.

const ANSI = /\x1b\[[0-9;]*m/g;
const ACTIVE =
	/Virtual Mailbox Trigger active: register (\S+) in the dashboard for ([a-z, -]+?) \(one subscription per event\)/;
const INACTIVE =
	/Virtual Mailbox Trigger deactivated: remove or pause the dashboard subscriptions of (\S+) if/;

/** Pure: the subscription change one line of n8n's output asks for, if any: {url, events}. */
export function triggerChange(line) {
	const text = line.replace(ANSI, '');
	const active = ACTIVE.exec(text);
	if (active)
		return {
			url: active[1],
			events: active[2]
				.split(',')
				.map((e) => e.trim())
				.filter(Boolean),
		};
	const inactive = INACTIVE.exec(text);
	if (inactive) return { url: inactive[1], events: [] };
	return undefined;
}

/**
 * A sink for n8n's output that keeps the simulator at `simUrl` subscribed to the triggers n8n runs:
 * `write(chunk)` takes the output as it comes off a pipe (chunks split anywhere; a line counts once
 * its newline has arrived), `line(text)` one whole line. `onChange({url, events})` is told of each
 * change once it is applied; `nameOf(url)` (optional) names the workflow a subscribed URL is of.
 */
export function followTriggers(
	simUrl,
	{ onChange = () => {}, onError = () => {}, nameOf = async () => undefined } = {},
) {
	let pending = '';
	let chain = Promise.resolve();
	const apply = (change) => {
		chain = chain
			.then(async () => {
				// The log line has the URL only; `nameOf(url)` finds its workflow's name (n8n's REST API).
				const name = change.events.length
					? await nameOf(change.url).catch(() => undefined)
					: undefined;
				const response = await fetch(`${simUrl}/_control/webhooks`, {
					method: 'PUT',
					body: JSON.stringify({ ...change, origin: 'n8n', ...(name ? { name } : {}) }),
				});
				if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
				onChange(change);
			})
			.catch((error) => onError(error));
	};
	const line = (text) => {
		const change = triggerChange(text);
		if (change) apply(change);
	};
	return {
		/** Feed n8n's raw output. */
		write(chunk) {
			const lines = (pending + chunk).split('\n');
			pending = lines.pop();
			for (const text of lines) line(text);
		},
		/** Feed one whole line of n8n's output (startN8n's `log` passes lines). */
		line,
		/** Resolves once every change read so far is applied. */
		settled: () => chain,
	};
}
