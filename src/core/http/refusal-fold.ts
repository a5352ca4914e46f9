/**
 * Which refusals get an access-log line of their own (`log.requests: aggregate`), and the counts
 * of those that do not. A client that is refused again and again — 429s once it is over its
 * limit, 401s and 404s by the thousand — says nothing new with each line: one such client wrote
 * 7 MiB of log a second, every line a warn. Many clients at once say nothing new either: through a
 * trusted proxy, 10 000 forwarded addresses refused once a second each wrote a line per refusal
 * (232 B of log a refusal, 2.2 MiB a second) until `log.maxBytesPerSecond` dropped lines.
 *
 * So within a second, a refusal is logged only while both hold:
 *  - it is its address's first 429 of a code, or among its address's first five refusals of any
 *    other code;
 *  - fewer than REFUSAL_LINES_PER_SECOND refusal lines have been written in that second, across
 *    all addresses.
 * The rest are counted (RefusalCounts): by code, and by address for the addresses refused most,
 * into the once-a-second `"refusals"` line (access-log.ts). A flood therefore costs at most
 * REFUSAL_LINES_PER_SECOND lines and one bounded line a second, whatever the number of addresses.
 *
 * Time comes from the server's injected clock. Both tables are bounded: the per-address one by
 * the budget (only logged refusals enter it), the counts by MAX_COUNTED_CLIENTS addresses.
 */

/** Refusal lines written per second across all addresses (per HTTP thread); the rest are counted. */
export const REFUSAL_LINES_PER_SECOND = 10;
/** Addresses named in one `"refusals"` line, those refused most; the rest are summed under `"other"`. */
export const TOP_REFUSED_CLIENTS = 10;
/** Addresses counted one by one between two `"refusals"` lines; refusals of further ones count under `"other"` only. */
const MAX_COUNTED_CLIENTS = 10_000;

/** Lines a second per address and code: one says the client is limited, a few show a pattern. */
const LINES_PER_SECOND_LIMITED = 1;
const LINES_PER_SECOND_OTHER = 5;
const WINDOW_MS = 1000;

export class RefusalFold {
  private window = -1;
  /** Refusal lines written this second, all addresses. */
  private lines = 0;
  /** `address code` → lines written this second (at most `linesPerSecond` entries). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly linesPerSecond = REFUSAL_LINES_PER_SECOND,
  ) {}

  /** True when this refusal is to be counted rather than logged. Only client errors (4xx) fold. */
  fold(client: string, status: number, code: string | undefined): boolean {
    if (status < 400 || status >= 500) return false;
    const window = Math.floor(this.now() / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.lines = 0;
      this.seen.clear();
    }
    if (this.lines >= this.linesPerSecond) return true;
    const k = `${client} ${code ?? status}`;
    const n = this.seen.get(k) ?? 0;
    if (n >= (status === 429 ? LINES_PER_SECOND_LIMITED : LINES_PER_SECOND_OTHER)) return true;
    this.seen.set(k, n + 1);
    this.lines++;
    return false;
  }
}

/** One address's counted refusals. */
interface ClientRefusals {
  client: string;
  total: number;
  codes: Map<string, number>;
}

/** The refusals counted instead of logged since the last `"refusals"` line. */
export class RefusalCounts {
  /** Refusals counted. */
  total = 0;
  /** Code (or status, for a refusal without one) → count. */
  readonly codes = new Map<string, number>();
  /** Address → its counts, for at most `maxClients` addresses; further ones are in `codes` and `total` only. */
  private readonly clients = new Map<string, ClientRefusals>();

  constructor(private readonly maxClients = MAX_COUNTED_CLIENTS) {}

  add(client: string, code: string): void {
    this.total++;
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    let c = this.clients.get(client);
    if (c === undefined) {
      if (this.clients.size >= this.maxClients) return;
      c = { client, total: 0, codes: new Map() };
      this.clients.set(client, c);
    }
    c.total++;
    c.codes.set(code, (c.codes.get(code) ?? 0) + 1);
  }

  /** Addresses counted one by one (at most `maxClients`; refusals of others are in `other`). */
  get addresses(): number {
    return this.clients.size;
  }

  /**
   * The `n` addresses refused most, most first, and the codes of all the others summed: what the
   * `"refusals"` line names. Ties keep the order the addresses were first counted in.
   */
  top(n: number): { top: ClientRefusals[]; other: Map<string, number> | undefined } {
    const top: ClientRefusals[] = [];
    for (const c of this.clients.values()) {
      if (top.length === n && c.total <= top[n - 1]!.total) continue;
      let i = top.length === n ? n - 1 : top.length;
      while (i > 0 && top[i - 1]!.total < c.total) i--;
      top.splice(i, 0, c);
      if (top.length > n) top.pop();
    }
    let named = 0;
    for (const c of top) named += c.total;
    if (named === this.total) return { top, other: undefined };
    const other = new Map(this.codes);
    for (const c of top) {
      for (const [code, k] of c.codes) {
        const left = other.get(code)! - k;
        if (left === 0) other.delete(code);
        else other.set(code, left);
      }
    }
    return { top, other };
  }

  clear(): void {
    this.total = 0;
    this.codes.clear();
    this.clients.clear();
  }
}
