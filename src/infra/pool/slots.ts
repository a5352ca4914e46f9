/**
 * A fixed number of slots and a bounded FIFO of callers waiting for one: how the worker pool
 * (its threads) and the upstream backend (its connections to the proof server) admit work.
 *
 * A caller holds its slot from the moment its work starts until it ends. A caller still waiting
 * has started nothing, so refusing it loses nothing: it leaves when its signal aborts (the client
 * went away), and at shutdown `drain()` refuses every waiter at once and every later caller, while
 * the work holding a slot carries on (DESIGN.md, "Graceful shutdown"). Without this queue of our
 * own, waiting work would sit inside piscina or undici, which can only start it or cancel it
 * blindly — neither can tell a waiting task from a running one.
 *
 * A caller marked `exempt` is part of work that already started (a sponsorship's balance task
 * proving through the main thread's backend): drain() neither refuses nor drops it, or a started
 * request would fail for want of a step it cannot do without.
 */
export interface SlotsOptions {
  /** Work running at once. */
  size: number;
  /** Callers that may wait for a slot; beyond, `full()` is thrown at once. */
  maxQueue: number;
  /** The error for a caller that finds the queue full. */
  full(): Error;
  /** The error for a caller refused because shutdown began; `label` names its work. */
  refused(label: string): Error;
}

interface Waiter {
  readonly label: string;
  readonly exempt: boolean;
  resolve(): void;
  reject(err: unknown): void;
  /** Detach from the caller's signal. */
  detach(): void;
}

export class Slots {
  readonly size: number;
  readonly maxQueue: number;
  readonly #opts: SlotsOptions;
  #busy = 0;
  /** A Set keeps insertion order (FIFO) and removes a leaving caller in O(1). */
  readonly #waiting = new Set<Waiter>();
  #draining = false;

  constructor(opts: SlotsOptions) {
    this.size = opts.size;
    this.maxQueue = opts.maxQueue;
    this.#opts = opts;
  }

  /** Slots held by running work. */
  get busy(): number {
    return this.#busy;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Take a slot. `undefined`: one was free and is now the caller's, who starts at once (no tick
   * passes). A promise: the caller waits, first come first served, and holds the slot when it
   * resolves; it rejects with the signal's reason if the caller leaves, or with `refused(label)`
   * at shutdown. Throws at once when the queue is full, the signal already aborted, or shutdown
   * began (unless `exempt`). Every slot taken must be given back with `release()`.
   */
  acquire(label: string, signal?: AbortSignal, exempt = false): Promise<void> | undefined {
    if (this.#draining && !exempt) throw this.#opts.refused(label);
    signal?.throwIfAborted();
    if (this.#busy < this.size) {
      this.#busy++;
      return undefined;
    }
    if (this.#waiting.size >= this.maxQueue) throw this.#opts.full();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting.delete(waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = { label, exempt, resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.add(waiter);
    });
  }

  /** Give a slot back: the first waiter gets it, or it is free. */
  release(): void {
    for (const next of this.#waiting) {
      this.#waiting.delete(next);
      next.detach();
      next.resolve();
      return;
    }
    this.#busy--;
  }

  /** Shutdown began: refuse every waiter (but the exempt) now and every later caller. Returns how many were refused. */
  drain(): number {
    this.#draining = true;
    let refused = 0;
    for (const w of [...this.#waiting]) {
      if (w.exempt) continue;
      this.#waiting.delete(w);
      w.detach();
      w.reject(this.#opts.refused(w.label));
      refused++;
    }
    return refused;
  }
}
