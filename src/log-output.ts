/**
 * The log's way to stdout, bounded. pino hands every line to a SonicBoom that writes asynchronously
 * and buffers what the file descriptor has not taken yet — without limit: with a slow reader on
 * stdout (a stalled journald, a full pipe) every request's line piles up in memory, and a client
 * that makes many requests makes the process grow (issue 18: 298 → 819 MiB). Here the buffer holds
 * at most `maxBytes`; a line that does not fit is dropped whole and counted. When stdout has taken
 * everything again, `onRecovered` listeners hear how many lines were lost since the last report.
 */
import { pino, type DestinationStream } from 'pino';

/** Default bound of the log buffer (`log.bufferBytes`). */
export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

export interface BoundedOutputOptions {
  /** File descriptor to write to (1 = stdout). */
  fd: number;
  maxBytes: number;
}

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
  /** Bytes accepted and not yet written. */
  bufferedBytes = 0;
  readonly maxBytes: number;
  private unreported = 0;
  private readonly listeners: Array<(dropped: number) => void> = [];
  private readonly sonic: Sonic;

  constructor(opts: BoundedOutputOptions) {
    this.maxBytes = opts.maxBytes;
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
    this.writeLines(line, 1);
  }

  /**
   * `lines` complete lines in one chunk (the access log's batches, http/access-log.ts): written
   * whole, or dropped whole and every line in it counted.
   */
  writeLines(chunk: string, lines: number): void {
    const size = Buffer.byteLength(chunk);
    if (this.bufferedBytes + size > this.maxBytes) {
      this.dropped += lines;
      this.unreported += lines;
      return;
    }
    this.bufferedBytes += size;
    this.sonic.write(chunk);
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

  health(): { status: 'ok'; droppedLines: number; bufferedBytes: number; maxBytes: number } {
    return { status: 'ok', droppedLines: this.dropped, bufferedBytes: this.bufferedBytes, maxBytes: this.maxBytes };
  }
}
