/**
 * Keyed requests per API key since the server started: how many were answered, and the refused
 * ones (status ≥ 400) by error code. GET /usage shows them (`requests`), and so the dashboard's
 * operator panel. Not a Prometheus series: the metrics carry no key label for requests.
 *
 * Counted by the pipeline on the thread that authenticates keyed requests, the main thread (with
 * `server.threads` above 1 the HTTP threads forward every keyed request there). A request counts
 * when its answer is written; one whose client left first (499) does not. Bounded: key ids come
 * from the configuration, and at most `maxKeys` of them are told apart (the rest are counted under
 * `(other)`); codes come from the error catalogue, at most `maxCodes` per key (the rest `(other)`).
 */

export const OTHER = '(other)';

interface KeyRequestCounts {
  /** Answered requests (refused ones included). */
  total: number;
  /** Refused or failed requests by error code. */
  refused: Record<string, number>;
}

interface Tally {
  total: number;
  refused: Map<string, number>;
}

export class KeyRequests {
  readonly #byKey = new Map<string, Tally>();

  constructor(
    private readonly maxKeys = 10_000,
    private readonly maxCodes = 128,
  ) {}

  /** One answered request of `keyId`: its status and, for an error answer, its code. */
  count(keyId: string, status: number, code: string | undefined): void {
    let t = this.#byKey.get(keyId);
    if (t === undefined) {
      const id = this.#byKey.size < this.maxKeys ? keyId : OTHER;
      t = this.#byKey.get(id);
      if (t === undefined) this.#byKey.set(id, (t = { total: 0, refused: new Map() }));
    }
    t.total++;
    if (status < 400) return;
    let c = code ?? String(status);
    if (!t.refused.has(c) && t.refused.size >= this.maxCodes) c = OTHER;
    t.refused.set(c, (t.refused.get(c) ?? 0) + 1);
  }

  /** The counts of one key, or undefined when it made no request since start. */
  of(keyId: string): KeyRequestCounts | undefined {
    const t = this.#byKey.get(keyId);
    return t === undefined ? undefined : { total: t.total, refused: Object.fromEntries(t.refused) };
  }

  /** The key ids counted so far. */
  keyIds(): string[] {
    return [...this.#byKey.keys()];
  }
}
