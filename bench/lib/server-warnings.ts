/**
 * The local server's own warnings and errors (pino lines at level ≥ 40 on its output), kept for
 * the run's report: a sponsorship answered 500 is explained by the line the server logged.
 * Bounded: the first MAX_LINES lines are kept whole, every message is counted.
 */
const MAX_LINES = 5_000;
const WARN = 40;

export class ServerWarnings {
  readonly #lines: string[] = [];
  readonly #byMessage = new Map<string, number>();
  count = 0;

  line(text: string): void {
    if (!text.startsWith('{')) return;
    let entry: { level?: unknown; msg?: unknown; err?: unknown; code?: unknown };
    try {
      entry = JSON.parse(text) as typeof entry;
    } catch {
      return;
    }
    if (typeof entry.level !== 'number' || entry.level < WARN) return;
    this.count++;
    if (this.#lines.length < MAX_LINES) this.#lines.push(text);
    const err = typeof entry.err === 'object' && entry.err !== null ? (entry.err as { message?: unknown }).message : entry.err;
    const key = `${String(entry.msg)}${err ? `: ${String(err).slice(0, 160)}` : ''}`;
    this.#byMessage.set(key, (this.#byMessage.get(key) ?? 0) + 1);
  }

  text(): string {
    return this.#lines.join('\n') + '\n';
  }

  top(n: number): string {
    return [...this.#byMessage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([m, c]) => `${c} × ${m}`)
      .join('; ');
  }
}
