/**
 * Holds: the timings of requests, the webhook trigger's answer time and the largest answer read.
 * The nodes only read it; tests and benchmarks shorten it in their own process. Bound: a fixed
 * object. Several processes: each has the same defaults.
 */
export const retryPolicy = {
	maxAttempts: 5,
	/** Total time a request may spend waiting between attempts. */
	budgetMs: 60_000,
	baseDelayMs: 1_000,
	maxDelayMs: 20_000,
	/** A hung server never blocks a node. */
	timeoutMs: 60_000,
	downloadTimeoutMs: 120_000,
	/** The webhook trigger answers a delivery within this, whatever its enrichment waits for. */
	answerWithinMs: 5_000,
	/** A page of 100 mail items is under 1 MB: more is a wrong server or proxy, not to read whole. */
	maxAnswerBytes: 32 * 1024 * 1024,
};
