/**
 * One call in flight per key: N concurrent identical lookups cost one upstream request.
 * The shared call is aborted only when every caller that brought a signal has gone away — one
 * impatient client must not cancel the answer others are waiting for.
 */
interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Callers still interested; callers without a signal stay interested forever. */
  waiters: number;
}

export class SingleFlight<T> {
  private readonly flights = new Map<string, Flight<T>>();

  get size(): number {
    return this.flights.size;
  }

  run(key: string, fn: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let flight = this.flights.get(key);
    if (!flight) {
      const controller = new AbortController();
      const f: Flight<T> = { controller, waiters: 0, promise: Promise.resolve() as Promise<never> };
      f.promise = (async () => fn(controller.signal))().finally(() => {
        if (this.flights.get(key) === f) this.flights.delete(key);
      });
      this.flights.set(key, f);
      flight = f;
    }
    const f = flight;
    f.waiters++;
    if (signal) {
      const leave = (): void => {
        if (--f.waiters === 0) f.controller.abort(signal.reason);
      };
      if (signal.aborted) leave();
      else signal.addEventListener('abort', leave, { once: true });
    }
    return f.promise;
  }

  /** Abort every call in flight (shutdown). */
  abortAll(reason: unknown): void {
    for (const f of this.flights.values()) f.controller.abort(reason);
  }
}
