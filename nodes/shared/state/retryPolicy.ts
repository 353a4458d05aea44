/**
 * Holds: the timing numbers of requests (retries, timeouts), the webhook trigger's answer time and
 * the largest API answer read. The nodes only read it; tests and benchmarks shorten the waits (or
 * lower the limit) by assigning to it in their own process.
 * Bound: a fixed object. Several processes: each reads its own copy of the same defaults.
 */
export const retryPolicy = {
	maxAttempts: 5,
	/** Total time a request may spend waiting between attempts. */
	budgetMs: 60_000,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	/** No API request waits longer than this for its answer (a hung server never blocks a node). */
	timeoutMs: 60_000,
	/** The same for a file download. */
	downloadTimeoutMs: 120_000,
	/** The webhook trigger answers a delivery within this, whatever its enrichment still waits for. */
	answerWithinMs: 5_000,
	/**
	 * The largest API answer read (a page of 100 mail items is well under 1 MB): a larger one is a
	 * wrong server or a broken proxy, and reading it whole could exhaust n8n's memory.
	 */
	maxAnswerBytes: 32 * 1024 * 1024,
};
