/**
 * Holds: the retry policy's numbers. The nodes only read it; tests and benchmarks shorten the
 * waits by assigning to it in their own process.
 * Bound: a fixed object. Several processes: each reads its own copy of the same defaults.
 */
export const retryPolicy = {
	maxAttempts: 5,
	/** Total time a request may spend waiting between attempts. */
	budgetMs: 60_000,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
};
