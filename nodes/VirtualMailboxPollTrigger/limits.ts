/**
 * The Poll Trigger's limits (docs/poll-trigger.md). They are part of its stated guarantee: change
 * them only together with that file.
 */

/** Mail logged with an arrival date more than this before the newest recorded mail is not emitted. */
export const LATE_WINDOW_MS = 72 * 60 * 60 * 1000;

/** Mail ids New Mail records at most; mail below the newest this many recorded items is not emitted. */
export const MAX_REMEMBERED = 1_000;

/** Items one New Mail poll emits at most; the rest are emitted by the next polls if they still match. */
export const MAX_EMIT_PER_POLL = 1_000;
