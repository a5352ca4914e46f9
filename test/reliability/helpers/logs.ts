/**
 * The production logger (src/core/log/log.ts: same redaction, same serializers) writing into memory, with
 * a way to wait for a line instead of sleeping: `next(l => l.msg === '…')` resolves on the first
 * matching line logged from now on (or already logged, with `seen`).
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../../src/core/log/log.js';

export type LogLine = Record<string, unknown>;

export interface WatchedLogs {
  logger: Logger;
  lines: LogLine[];
  /** Everything written, as the bytes a log shipper would see. */
  text(): string;
  /** The first line matching `pred` logged after this call. */
  next(pred: (l: LogLine) => boolean): Promise<LogLine>;
}

export function watchLogs(level = 'info'): WatchedLogs {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const events = new EventEmitter<{ line: [LogLine] }>();
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) {
        if (!l) continue;
        raw.push(l);
        const parsed = JSON.parse(l) as LogLine;
        lines.push(parsed);
        events.emit('line', parsed);
      }
      cb();
    },
  });
  const logger = createLogger(level, stream);
  return {
    logger,
    lines,
    text: () => raw.join('\n'),
    next: (pred) =>
      new Promise((resolve) => {
        const on = (l: LogLine): void => {
          if (!pred(l)) return;
          events.off('line', on);
          resolve(l);
        };
        events.on('line', on);
      }),
  };
}
