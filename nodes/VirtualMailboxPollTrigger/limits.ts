/**
 * The Poll Trigger's limits (docs/poll-trigger.md). They are part of its stated guarantee: change
 * them only together with that file.
 */

/** Mail logged with an arrival date this long before the newest recorded is not emitted. */
export const LATE_WINDOW_MS = 72 * 60 * 60 * 1000;

/** Mail below the newest this many recorded items is not emitted. */
export const MAX_REMEMBERED = 1_000;

/** The rest are emitted by the next polls if they still match. */
export const MAX_EMIT_PER_POLL = 1_000;
