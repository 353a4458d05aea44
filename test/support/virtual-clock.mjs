/**
 * Virtual time for protocol tests: wait() schedules a timer; run() fires timers in time order, each
 * once everything that could run has run (one setImmediate drains the promise jobs), until the
 * awaited work is done. Seconds-long waits cost nothing, and a schedule depends only on its seed.
 * `run(promise)` waits for a promise; `run(() => boolean)` until the predicate holds (work that
 * never finishes, e.g. a stopped process, is then left behind). Either throws when no timer is left
 * and the work is not done (it is stuck), or once virtual time passes `limitMs`.
 */
export function virtualClock({ limitMs = Infinity } = {}) {
	let now = 0;
	let seq = 0;
	const timers = [];
	const wait = (ms) =>
		new Promise((resolve) => timers.push({ at: now + Math.max(0, ms), seq: seq++, resolve }));
	return {
		now: () => now,
		wait,
		/** The same wait under the name the older tests use. */
		sleep: wait,
		async run(work) {
			let isDone;
			let watched;
			if (typeof work === 'function') isDone = work;
			else {
				let done = false;
				watched = work.finally(() => (done = true));
				isDone = () => done;
			}
			for (;;) {
				await new Promise((resolve) => setImmediate(resolve));
				if (isDone()) return watched ? await watched : undefined;
				if (!timers.length)
					throw new Error(`stuck at ${now} ms: no timer left and the work is not done`);
				timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
				const timer = timers.shift();
				if (timer.at > limitMs) throw new Error(`stuck: still not done at ${limitMs} ms (virtual)`);
				now = timer.at;
				timer.resolve();
			}
		},
	};
}
