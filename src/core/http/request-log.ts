/**
 * Which access-log entry a finished request gets (`log.requests`): a line of its own, a count in
 * the once-a-second `"requests"` line, a count in the `"refusals"` line, or nothing. The lines
 * themselves are built and batched by access-log.ts; which refusals fold is refusal-fold.ts.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { clip } from '../log/log.js';
import { rateLimitSubject } from '../config/cidr.js';
import { AccessLog } from './access-log.js';
import type { Exchange } from './exchange.js';
import { RefusalFold } from './refusal-fold.js';

type RequestLogMode = 'all' | 'aggregate' | 'errors' | 'none';

export class RequestLog {
  /** The access log's lines (built by hand, batched: access-log.ts). */
  private readonly lines: AccessLog;
  /** Which refusals are counted rather than logged (`aggregate`: refusal-fold.ts). */
  private readonly refusals: RefusalFold;

  constructor(
    logger: Logger,
    now: () => number,
    private readonly mode: RequestLogMode,
  ) {
    this.lines = new AccessLog(logger);
    this.refusals = new RefusalFold(now);
  }

  /**
   * A request was answered with `status` (499: the client left). `aggregate`: the public routes'
   * answers below 400, and the refusals refusal-fold.ts folds (an address's repeated ones, all of
   * them past its budget of lines a second), are counted: one line a second each.
   */
  record(ex: Exchange, status: number): void {
    const mode = this.mode;
    if (mode === 'none' || !this.lines.enabled) return;
    if (mode === 'aggregate' && status >= 400 && status < 500) {
      const client = rateLimitSubject(ex.ip);
      if (this.refusals.fold(client, status, ex.code)) {
        this.lines.countRefusal(client, ex.code ?? String(status));
        return;
      }
    }
    if (mode === 'all' || status >= 400 || (mode === 'aggregate' && ex.route.auth !== 'none')) {
      this.lines.write(
        ex.requestId,
        ex.method,
        ex.route.url,
        clip(ex.path, 256)!,
        status,
        Math.round((performance.now() - ex.t0) * 100) / 100,
        ex.ip,
        ex.keyId,
        clip(ex.headers['x-client-id']),
        clip(ex.headers['x-client-name']),
        ex.code,
      );
    } else if (mode === 'aggregate') {
      this.lines.count(ex.route.url, status);
    }
  }

  /** Write what is counted so far and every pending line (shutdown: before the process may exit). */
  flushAll(): void {
    this.lines.writeCounts();
    this.lines.flush();
  }

  /** Write the pending lines. */
  flush(): void {
    this.lines.flush();
  }
}
