/**
 * pino, one root logger per app, a child per module (`logger.child({module: 'stats'})`).
 * Raw API keys never reach a log line: request headers that carry them are redacted by path,
 * and the request log records the key's id only.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import { BoundedOutput, DEFAULT_LOG_BUFFER_BYTES } from './output.js';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'authorization',
  'apiKey',
  'key',
];

/**
 * The root logger, on stdout through a bounded buffer unless given another destination. On a
 * BoundedOutput it logs, once stdout has caught up, how many lines were dropped meanwhile.
 */
export function createLogger(level: string, destination: DestinationStream = new BoundedOutput({ fd: 1, maxBytes: DEFAULT_LOG_BUFFER_BYTES })): Logger {
  const logger = pino(
    {
      level,
      base: { service: 'nightgate' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
  if (destination instanceof BoundedOutput) {
    destination.onRecovered((n) => logger.warn({ droppedLines: n, droppedTotal: destination.dropped }, 'log lines dropped: stdout did not keep up'));
    destination.onRateDropped((n) =>
      logger.warn(
        { droppedLines: n, droppedTotal: destination.dropped, maxBytesPerSecond: destination.maxBytesPerSecond },
        `${n} log lines dropped: over log.maxBytesPerSecond`,
      ),
    );
  }
  return logger;
}

/** At most `max` characters of a client-supplied value, for a log line (the rest is counted, not kept). */
export function clip(value: string | undefined, max = 128): string | undefined {
  if (value === undefined || value.length <= max) return value;
  return `${value.slice(0, max)}…(+${value.length - max})`;
}
