/**
 * Transactions the embedded devnet accepted at /submit and then dropped when it built a block
 * (`transaction dropped at block time`, with the ledger's reason, in its pino log on the server's
 * output). They will never be included, so a client waiting for one stops at once and the run
 * records the reason. Local runs only: a deployment's log is not ours to read.
 */
const MARKER = 'transaction dropped at block time';

export class DevnetDrops {
  readonly #reasons = new Map<string, string>();
  readonly #waiting = new Map<string, AbortController>();

  /** One output line of the server. */
  line(text: string): void {
    if (!text.includes(MARKER)) return;
    let entry: { hash?: unknown; reason?: unknown };
    try {
      entry = JSON.parse(text) as { hash?: unknown; reason?: unknown };
    } catch {
      return;
    }
    if (typeof entry.hash !== 'string') return;
    const hash = entry.hash.toLowerCase();
    this.#reasons.set(hash, typeof entry.reason === 'string' ? entry.reason : 'no reason logged');
    this.#waiting.get(hash)?.abort();
  }

  /** Aborts when the devnet drops `hash` (at once if it already has). */
  signalFor(hash: string): AbortSignal {
    const key = hash.toLowerCase();
    const controller = new AbortController();
    if (this.#reasons.has(key)) controller.abort();
    else this.#waiting.set(key, controller);
    return controller.signal;
  }

  /** The logged reason, once `hash` was dropped; forgets the waiter either way. */
  settle(hash: string): string | undefined {
    const key = hash.toLowerCase();
    this.#waiting.delete(key);
    return this.#reasons.get(key);
  }
}
