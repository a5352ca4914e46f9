/**
 * A fixed number of slots and a bounded queue of callers waiting for one: how the worker pool
 * (its threads) and the upstream backend (its connections to the proof server) admit work.
 *
 * A caller holds its slot from the moment its work starts until it ends. A caller still waiting
 * has started nothing, so refusing it loses nothing: it leaves when its signal aborts (the client
 * went away), and at shutdown `drain()` refuses every waiter at once and every later caller, while
 * the work holding a slot carries on (docs/operations.md, "Start, signals, shutdown"). Without this queue of our
 * own, waiting work would sit inside piscina or undici, which can only start it or cancel it
 * blindly — neither can tell a waiting task from a running one.
 *
 * Fair across keys: each caller names the key it works for (`key`, default '': everyone who names
 * none shares that one) and what its work is expected to cost (`cost`, e.g. ms of a thread). Each
 * key waits in a queue of its own, first come first served within it; a freed slot goes to the
 * waiting key that has used the least so far (its virtual time: the cost of the work it started,
 * corrected by what that work really cost when it ends, `release(key, correction)`). A key that
 * becomes busy starts at the least virtual time of the others, so it neither banks idle time nor
 * carries old debt. One key's pile of work therefore delays another key's next task by at most the
 * work already running, never by the pile; a key alone still gets every slot. Beyond the queue's
 * bound (`maxQueue`, all keys) `full()` is thrown; beyond a key's own bound (`maxQueuePerKey`, keys
 * other than '': everyone who names no key shares the whole queue, as before), `keyFull()`.
 *
 * A caller marked `exempt` is part of work that already started (a sponsorship's balance task
 * proving through the main thread's backend): drain() neither refuses nor drops it, or a started
 * request would fail for want of a step it cannot do without.
 */
interface SlotsOptions {
  /** Work running at once. */
  size: number;
  /** Callers that may wait for a slot; beyond, `full()` is thrown at once. */
  maxQueue: number;
  /** Callers of one key (other than '') that may wait; beyond, `keyFull()` is thrown at once. Default: `defaultMaxQueuePerKey`. */
  maxQueuePerKey?: number;
  /** The error for a caller that finds the queue full. */
  full(): Error;
  /** The error for a caller whose key has `maxQueuePerKey` callers waiting (default: `full()`). */
  keyFull?(key: string): Error;
  /** The error for a caller refused because shutdown began; `label` names its work. */
  refused(label: string): Error;
}

/** Who the work is for and what it is expected to cost. */
interface Claim {
  /** The key the work is for; '' (the default) is one shared key. */
  key?: string;
  /** Expected cost (any unit, the same for every caller, e.g. ms); default 1. */
  cost?: number;
}

interface Waiter {
  readonly label: string;
  readonly exempt: boolean;
  readonly cost: number;
  readonly seq: number;
  resolve(): void;
  reject(err: unknown): void;
  /** Detach from the caller's signal. */
  detach(): void;
}

/** One key's share: its waiters (a Set keeps insertion order and removes a leaving one in O(1)), its running work, its virtual time. */
interface KeyState {
  readonly waiting: Set<Waiter>;
  running: number;
  vtime: number;
}

/**
 * What one key may have waiting by default: the whole queue but an eighth of it (at least one
 * place), which stays for the other keys. A key alone may still queue nearly as much as before
 * the queue was shared by key; a key that fills its part cannot make another key's work wait for
 * room.
 */
function defaultMaxQueuePerKey(maxQueue: number): number {
  return maxQueue < 2 ? maxQueue : maxQueue - Math.max(1, Math.floor(maxQueue / 8));
}

/** The least cost a unit of work is charged: work that claims none still moves its key on. */
const MIN_COST = 1e-6;

export class Slots {
  readonly size: number;
  readonly maxQueue: number;
  readonly maxQueuePerKey: number;
  readonly #opts: SlotsOptions;
  #busy = 0;
  #waiting = 0;
  #seq = 0;
  /** Keys with work waiting or running; a key with neither is forgotten. */
  readonly #keys = new Map<string, KeyState>();
  /** Keys with work waiting, for the choice at each release. */
  readonly #backlogged = new Set<string>();
  /** Virtual time of the last work started: where a key that becomes busy starts. Never goes back. */
  #clock = 0;
  #draining = false;

  constructor(opts: SlotsOptions) {
    this.size = opts.size;
    this.maxQueue = opts.maxQueue;
    this.maxQueuePerKey = opts.maxQueuePerKey ?? defaultMaxQueuePerKey(opts.maxQueue);
    this.#opts = opts;
  }

  /** Slots held by running work. */
  get busy(): number {
    return this.#busy;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Callers of `key` waiting for a slot, and its work running. */
  of(key: string): { waiting: number; running: number } {
    const s = this.#keys.get(key);
    return { waiting: s?.waiting.size ?? 0, running: s?.running ?? 0 };
  }

  /** Keys with callers waiting. */
  get waitingKeys(): number {
    return this.#backlogged.size;
  }

  /** The refusal a caller of `key` would meet now for want of room in the queue, if any. */
  refusal(key = ''): Error | undefined {
    if (this.#busy < this.size) return undefined;
    if (this.#waiting >= this.maxQueue) return this.#opts.full();
    if (key !== '' && (this.#keys.get(key)?.waiting.size ?? 0) >= this.maxQueuePerKey) return this.#keyFull(key);
    return undefined;
  }

  /**
   * Take a slot. `undefined`: one was free and is now the caller's, who starts at once (no tick
   * passes). A promise: the caller waits its turn (see above) and holds the slot when it
   * resolves; it rejects with the signal's reason if the caller leaves, or with `refused(label)`
   * at shutdown. Throws at once when the queue (or the key's part of it) is full, the signal
   * already aborted, or shutdown began (unless `exempt`). Every slot taken must be given back with
   * `release(key)`.
   */
  acquire(label: string, signal?: AbortSignal, exempt = false, claim: Claim = {}): Promise<void> | undefined {
    if (this.#draining && !exempt) throw this.#opts.refused(label);
    signal?.throwIfAborted();
    const key = claim.key ?? '';
    const cost = Math.max(MIN_COST, claim.cost ?? 1);
    if (this.#busy < this.size) {
      this.#busy++;
      this.#start(this.#state(key), cost);
      return undefined;
    }
    const refusal = this.refusal(key);
    if (refusal) throw refusal;
    const state = this.#state(key);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#leave(key, state, waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = { label, exempt, cost, seq: ++this.#seq, resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.add(waiter);
      this.#waiting++;
      this.#backlogged.add(key);
    });
  }

  /**
   * Give a slot back: the waiting key that has used the least gets it, or it is free. `key` is the
   * one the work was for; `correction` what it really cost beyond (or, negative, short of) its
   * claim, charged to that key.
   */
  release(key = '', correction = 0): void {
    const done = this.#keys.get(key);
    if (done) {
      done.running--;
      if (Number.isFinite(correction)) done.vtime = Math.max(this.#clock, done.vtime + correction);
      this.#forgetIfIdle(key, done);
    }
    const next = this.#next();
    if (!next) {
      this.#busy--;
      return;
    }
    const [nextKey, state] = next;
    const waiter = state.waiting.values().next().value as Waiter;
    this.#remove(nextKey, state, waiter);
    waiter.detach();
    this.#start(state, waiter.cost);
    waiter.resolve();
  }

  /** Shutdown began: refuse every waiter (but the exempt) now and every later caller. Returns how many were refused. */
  drain(): number {
    this.#draining = true;
    let refused = 0;
    for (const [key, state] of [...this.#keys]) {
      for (const w of [...state.waiting]) {
        if (w.exempt) continue;
        this.#leave(key, state, w);
        w.detach();
        w.reject(this.#opts.refused(w.label));
        refused++;
      }
    }
    return refused;
  }

  #keyFull(key: string): Error {
    return this.#opts.keyFull ? this.#opts.keyFull(key) : this.#opts.full();
  }

  #state(key: string): KeyState {
    let s = this.#keys.get(key);
    if (!s) {
      s = { waiting: new Set(), running: 0, vtime: this.#clock };
      this.#keys.set(key, s);
    }
    return s;
  }

  #start(state: KeyState, cost: number): void {
    this.#clock = Math.max(this.#clock, state.vtime);
    state.running++;
    state.vtime += cost;
  }

  /** The backlogged key with the least virtual time; ties to the one waiting longest. */
  #next(): [string, KeyState] | undefined {
    let best: [string, KeyState] | undefined;
    let bestSeq = 0;
    for (const key of this.#backlogged) {
      const s = this.#keys.get(key)!;
      const seq = (s.waiting.values().next().value as Waiter).seq;
      if (!best || s.vtime < best[1].vtime || (s.vtime === best[1].vtime && seq < bestSeq)) {
        best = [key, s];
        bestSeq = seq;
      }
    }
    return best;
  }

  #remove(key: string, state: KeyState, waiter: Waiter): void {
    if (!state.waiting.delete(waiter)) return;
    this.#waiting--;
    if (state.waiting.size === 0) this.#backlogged.delete(key);
  }

  /** A waiter left without a slot (its caller left, or shutdown refused it). */
  #leave(key: string, state: KeyState, waiter: Waiter): void {
    this.#remove(key, state, waiter);
    this.#forgetIfIdle(key, state);
  }

  #forgetIfIdle(key: string, state: KeyState): void {
    if (state.running <= 0 && state.waiting.size === 0 && this.#keys.get(key) === state) this.#keys.delete(key);
  }
}
