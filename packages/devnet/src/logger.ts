// The logging surface devnet modules use. In the worker it forwards records to the main thread,
// where the caller's pino logger writes them; in-process (tests) any pino logger fits.
export interface DevnetLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export type LogLevel = keyof DevnetLogger;
