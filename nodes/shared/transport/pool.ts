import { sleep } from 'n8n-workflow';

/**
 * Bounded concurrency for one node run's requests. A 429 slows the whole run: the bound halves and
 * nobody starts a request before its Retry-After; the bound grows back by one after a run of
 * successes. The part with the most left to read goes first, so it never waits behind short ones.
 * Holds one run's counters and waiters; nothing is shared between runs or processes.
 */
export class RequestPool {
	private limit: number;

	private active = 0;

	private pausedUntil = 0;

	private successes = 0;

	private peak = 0;

	private readonly waiting: Array<{ priority: () => number; wake: () => void }> = [];

	constructor(readonly max: number) {
		this.limit = max;
	}

	/** Requests in flight at most so far (the pool's tests read it). */
	get peakInFlight(): number {
		return this.peak;
	}

	/** The current bound (lower than `max` after a 429). */
	get currentLimit(): number {
		return this.limit;
	}

	/** Wait for a slot; `priority` is read when a slot frees, so it may change while waiting. */
	async acquire(priority: () => number = () => 0): Promise<void> {
		for (;;) {
			const pause = this.pausedUntil - Date.now();
			if (pause > 0) {
				await sleep(pause);
				continue;
			}
			if (this.active < this.limit) {
				this.active++;
				this.peak = Math.max(this.peak, this.active);
				return;
			}
			await new Promise<void>((wake) => this.waiting.push({ priority, wake }));
		}
	}

	release(): void {
		this.active--;
		this.wakeNext();
	}

	/** A request answered without a 429. */
	succeeded(): void {
		if (this.limit >= this.max) return;
		if (++this.successes >= 2 * this.limit) {
			this.successes = 0;
			this.limit++;
			this.wakeNext();
		}
	}

	/** A 429: fewer in flight from now on, and no new request before `delayMs` has passed. */
	throttled(delayMs: number): void {
		this.successes = 0;
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delayMs);
	}

	private wakeNext(): void {
		if (this.waiting.length === 0 || this.active >= this.limit) return;
		let best = 0;
		for (let k = 1; k < this.waiting.length; k++)
			if (this.waiting[k].priority() > this.waiting[best].priority()) best = k;
		this.waiting.splice(best, 1)[0].wake();
	}
}
