/**
 * The log's way to stdout, bounded. pino hands every line to a SonicBoom that writes asynchronously
 * and buffers what the file descriptor has not taken yet — without limit: with a slow reader on
 * stdout (a stalled journald, a full pipe) every request's line piles up in memory, and a client
 * that makes many requests makes the process grow (298 → 819 MiB). Here the buffer holds
 * at most `maxBytes`; a line that does not fit is dropped whole and counted. When stdout has taken
 * everything again, `onRecovered` listeners hear how many lines were lost since the last report.
 *
 * It also bounds the bytes taken per second (`log.maxBytesPerSecond`): a flood of requests, each
 * with its line, would otherwise fill a disk at the speed of the network. Lines over the bound are
 * dropped whole and counted, and `onRateDropped` listeners hear how many once the next second begins.
 *
 * Audit lines (a record with a top-level `audit` field: a sponsorship, a proof) are the operator's
 * account of what was spent, and a flood must not cost them: they are never dropped over the
 * bytes of a second (their bytes still count towards it, so the other lines get less room), and
 * they may fill the buffer to twice `maxBytes` when other lines may not. Which lines they are,
 * pino says: a destination that asks for its metadata gets each record (`lastObj`) just before its
 * line, so a client's text in a line cannot pass for one. Only a stdout stalled until that reserve
 * is full too loses one (`droppedAudit`).
 */
import { pino, type DestinationStream } from 'pino';

/** Default bound of the log buffer (`log.bufferBytes`). */
export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

interface BoundedOutputOptions {
  /** File descriptor to write to (1 = stdout). */
  fd: number;
  maxBytes: number;
  /** Bytes accepted per second; beyond, lines are dropped until the next second (`log.maxBytesPerSecond`). */
  maxBytesPerSecond?: number;
  /** Wall-clock ms (tests inject one). */
  now?: () => number;
}

const SECOND_MS = 1000;

/** What SonicBoom offers beyond `write` (its types do not say it emits `write` with a byte count). */
interface Sonic extends DestinationStream {
  on(event: 'write', f: (n: number) => void): void;
  on(event: 'drain', f: () => void): void;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

export class BoundedOutput implements DestinationStream {
  /** Lines dropped since start. */
  dropped = 0;
  /** Audit lines among them: only over the buffer's audit reserve, never over the bytes of a second. */
  droppedAudit = 0;
  /** Bytes accepted and not yet written. */
  bufferedBytes = 0;
  readonly maxBytes: number;
  private unreported = 0;
  private readonly listeners: Array<(dropped: number) => void> = [];
  private readonly sonic: Sonic;
  readonly maxBytesPerSecond: number;
  private readonly now: () => number;
  private second = -1;
  private secondBytes = 0;
  /** Lines dropped over the rate bound in the current second, reported when the next begins. */
  private overRate = 0;
  private readonly rateListeners: Array<(dropped: number) => void> = [];
  private rateTimer: NodeJS.Timeout | undefined;
  /** pino: set `lastObj` to each record before `write`ing its line. */
  readonly [pino.symbols.needsMetadataGsym] = true as const;
  /** The record of the line pino writes next (its metadata); taken by `write`. */
  lastObj: object | undefined;

  constructor(opts: BoundedOutputOptions) {
    this.maxBytes = opts.maxBytes;
    this.maxBytesPerSecond = opts.maxBytesPerSecond ?? Infinity;
    this.now = opts.now ?? Date.now;
    this.sonic = pino.destination({ dest: opts.fd, sync: false }) as unknown as Sonic;
    this.sonic.on('write', (n) => {
      this.bufferedBytes = Math.max(0, this.bufferedBytes - n);
    });
    // 'drain': everything accepted has been written.
    this.sonic.on('drain', () => {
      this.bufferedBytes = 0;
      if (this.unreported === 0) return;
      const n = this.unreported;
      this.unreported = 0;
      for (const f of this.listeners) f(n);
    });
  }

  write(line: string): void {
    const record = this.lastObj as { audit?: unknown } | undefined;
    // Taken, so that a line written without pino (a worker's batch, a notice) is not read as this record's.
    this.lastObj = undefined;
    if (record?.audit !== undefined) this.writeAudit(line);
    else this.writeLines(line, 1);
  }

  /** Never dropped over the bytes of a second; in the buffer, up to twice `maxBytes`. */
  private writeAudit(line: string): void {
    const size = Buffer.byteLength(line);
    // Over this second's share or not, its bytes count towards it.
    if (this.overRateLimit(size)) this.secondBytes += size;
    if (this.bufferedBytes + size > 2 * this.maxBytes) {
      this.dropped++;
      this.droppedAudit++;
      this.unreported++;
      return;
    }
    this.bufferedBytes += size;
    this.sonic.write(line);
  }

  /**
   * `lines` complete lines in one chunk (the access log's batches, http/access-log.ts): written
   * whole, or dropped whole and every line in it counted.
   */
  writeLines(chunk: string, lines: number): void {
    const size = Buffer.byteLength(chunk);
    if (this.overRateLimit(size)) {
      this.dropped += lines;
      this.overRate += lines;
      // Said when the next second begins, by the next line or, if none comes, by a timer.
      this.rateTimer ??= setTimeout(() => this.reportRate(), SECOND_MS - (this.now() % SECOND_MS) + 1).unref();
      return;
    }
    if (this.bufferedBytes + size > this.maxBytes) {
      this.dropped += lines;
      this.unreported += lines;
      return;
    }
    this.bufferedBytes += size;
    this.sonic.write(chunk);
  }

  /**
   * Whether `size` more bytes exceed this second's share; if not, they are taken from it. A new
   * second first reports the last one's drops.
   */
  private overRateLimit(size: number): boolean {
    if (this.maxBytesPerSecond === Infinity) return false;
    const second = Math.floor(this.now() / SECOND_MS);
    if (second !== this.second) {
      this.second = second;
      this.secondBytes = 0;
      if (this.overRate > 0) queueMicrotask(() => this.reportRate());
    }
    if (this.secondBytes + size > this.maxBytesPerSecond) return true;
    this.secondBytes += size;
    return false;
  }

  private reportRate(): void {
    if (this.rateTimer !== undefined) clearTimeout(this.rateTimer);
    this.rateTimer = undefined;
    const n = this.overRate;
    if (n === 0) return;
    this.overRate = 0;
    for (const f of this.rateListeners) f(n);
  }

  /** Called with the lines dropped over `maxBytesPerSecond` in a second, once the next has begun. */
  onRateDropped(f: (dropped: number) => void): void {
    this.rateListeners.push(f);
  }

  /** Called with the lines lost since the last call, each time stdout has caught up after a loss. */
  onRecovered(f: (dropped: number) => void): void {
    this.listeners.push(f);
  }

  flush(cb?: (err?: Error) => void): void {
    this.sonic.flush(cb);
  }

  flushSync(): void {
    this.sonic.flushSync();
  }

  health(): { status: 'ok'; droppedLines: number; droppedAuditLines: number; bufferedBytes: number; maxBytes: number; maxBytesPerSecond: number | null } {
    return {
      status: 'ok',
      droppedLines: this.dropped,
      droppedAuditLines: this.droppedAudit,
      bufferedBytes: this.bufferedBytes,
      maxBytes: this.maxBytes,
      maxBytesPerSecond: Number.isFinite(this.maxBytesPerSecond) ? this.maxBytesPerSecond : null,
    };
  }
}
