/**
 * Which refusals get an access-log line of their own (`log.requests: aggregate`). A client that is
 * refused again and again — 429s once it is over its limit, 401s and 404s by the thousand — says
 * nothing new with each line, and one such client wrote 7 MiB of log a second, every line a warn.
 * Within a second, an address's first 429 of a code and its first five refusals of any other code
 * are logged; the rest are counted by address and code in the once-a-second line (access-log.ts).
 *
 * Time comes from the server's injected clock. The table is bounded: beyond `maxClients`
 * addresses in one second, a new address's refusals are counted without lines of their own.
 */

/** Lines a second per address and code: one says the client is limited, a few show a pattern. */
const LINES_PER_SECOND_LIMITED = 1;
const LINES_PER_SECOND_OTHER = 5;
const WINDOW_MS = 1000;
const DEFAULT_MAX_CLIENTS = 10_000;

export class RefusalFold {
  private window = -1;
  /** `address code` → lines written this second. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => number, private readonly maxClients = DEFAULT_MAX_CLIENTS) {}

  /** True when this refusal is to be counted rather than logged. Only client errors (4xx) fold. */
  fold(client: string, status: number, code: string | undefined): boolean {
    if (status < 400 || status >= 500) return false;
    const window = Math.floor(this.now() / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.seen.clear();
    }
    const k = `${client} ${code ?? status}`;
    const n = this.seen.get(k);
    if (n === undefined && this.seen.size >= this.maxClients) return true;
    if ((n ?? 0) >= (status === 429 ? LINES_PER_SECOND_LIMITED : LINES_PER_SECOND_OTHER)) return true;
    this.seen.set(k, (n ?? 0) + 1);
    return false;
  }
}
