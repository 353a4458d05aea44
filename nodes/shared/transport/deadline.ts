/**
 * Deadlines that hold whatever the other side does. n8n's `timeout` option is an idle timeout (it
 * restarts with every byte), so a host that dribbles one byte at a time never meets it; a deadline
 * here is wall-clock time for the whole piece of work.
 */

/** The work did not finish by its deadline. */
export class DeadlineExceeded extends Error {
	constructor(readonly ms: number) {
		super(`no complete answer within ${ms / 1000} s`);
		this.name = 'DeadlineExceeded';
	}
}

export interface Deadline {
	/** Aborts at the deadline or with the caller's signal: hand it to n8n's `abortSignal`. */
	signal: AbortSignal;
	ms: number;
}

/** A deadline `ms` from now; it also ends when `outer` (the caller's signal) aborts. */
export function deadlineIn(ms: number, outer?: AbortSignal): Deadline {
	const timer = AbortSignal.timeout(ms);
	return { signal: outer ? AbortSignal.any([timer, outer]) : timer, ms };
}

/**
 * The race makes the deadline hold even where a helper ignores the signal; the signal, passed to
 * n8n, is what closes the connection.
 */
export async function beforeDeadline<T>(
	deadline: Deadline,
	work: Promise<T>,
	late: () => Error = () => new DeadlineExceeded(deadline.ms),
): Promise<T> {
	const { signal } = deadline;
	const reasonOf = () =>
		(signal.reason as { name?: string } | undefined)?.name === 'TimeoutError'
			? late()
			: signal.reason;
	if (signal.aborted) {
		work.catch(() => undefined);
		throw reasonOf();
	}
	let onAbort = () => {};
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(reasonOf());
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		return await Promise.race([work, aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}
