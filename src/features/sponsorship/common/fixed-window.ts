/**
 * Fixed windows, as the key budgets (budget.ts, shared/budget.ts) and a policy's per-user caps
 * (policy/user-counters.ts) count: aligned to multiples of the window's length since the epoch, so
 * every instance agrees where one ends and a refused client can be told when.
 */

/** Start of the window of `windowMs` holding `now`, ms since the epoch. */
export const windowStartOf = (now: number, windowMs: number): number => now - (now % windowMs);

/** Whole seconds from `now` until `at`, at least 1: a Retry-After. */
export const secondsUntil = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1000));

/** Seconds until the window holding `now` ends (at least 1): the Retry-After of a spent window. */
export const secondsToWindowEnd = (now: number, windowMs: number): number => secondsUntil(windowStartOf(now, windowMs) + windowMs, now);
