/** Time source, injected everywhere time matters so tests control it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
