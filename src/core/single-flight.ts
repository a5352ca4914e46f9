/**
 * Identical requests in flight share one computation (one upstream lookup, one proof, one
 * sponsorship). The computation has its own AbortSignal, aborted only when every caller waiting on
 * it has gone: one client leaving must not cancel what others still wait for, and the last one
 * leaving must free the worker or the upstream connection. A caller without a signal stays
 * interested until the computation ends.
 */
interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export class SingleFlight<T> {
  readonly #flights = new Map<string, Flight<T>>();

  get size(): number {
    return this.#flights.size;
  }

  /** A computation for `key` is under way. */
  has(key: string): boolean {
    return this.#flights.has(key);
  }

  /** Join the flight for `key`, or start it with `compute`. `shared` tells which happened. */
  run(key: string, compute: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): { shared: boolean; result: Promise<T> } {
    let flight = this.#flights.get(key);
    // Everyone left and it was told to stop, but it has not ended yet: a newcomer must not inherit
    // the abort meant for them. It gets a flight of its own (the old one never removes a newer one).
    if (flight?.controller.signal.aborted) flight = undefined;
    const shared = flight !== undefined;
    if (!flight) {
      const controller = new AbortController();
      const started: Flight<T> = { controller, waiters: 0, promise: Promise.resolve().then(() => compute(controller.signal)) };
      const done = (): void => {
        if (this.#flights.get(key) === started) this.#flights.delete(key);
      };
      started.promise.then(done, done);
      this.#flights.set(key, started);
      flight = started;
    }
    const f = flight;
    f.waiters++;
    if (!signal) {
      // Never leaves: the flight cannot be aborted on this caller's behalf.
      return { shared, result: f.promise };
    }
    const result = new Promise<T>((resolve, reject) => {
      let settled = false;
      const leave = (): void => {
        signal.removeEventListener('abort', onAbort);
        if (--f.waiters === 0 && !settled) f.controller.abort(signal.reason);
      };
      const onAbort = (): void => {
        if (settled) return;
        leave();
        settled = true;
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      f.promise.then(
        (v) => {
          if (settled) return;
          settled = true;
          leave();
          resolve(v);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          leave();
          reject(e);
        },
      );
    });
    return { shared, result };
  }

  /** Abort every computation in flight (shutdown). */
  abortAll(reason: unknown): void {
    for (const f of this.#flights.values()) f.controller.abort(reason);
  }
}
