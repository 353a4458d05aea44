/**
 * Holds: how Return All confirms a list read in several requests. The nodes only read it;
 * benchmarks turn the confirmation off in their own process to measure its cost against a baseline.
 * Bound: a fixed object. Several processes: each reads its own copy of the same defaults.
 */
export const listPolicy = {
	/** Read a list of more than one page a second time and return it only when both reads agree. */
	confirmReturnAll: true,
};
