/** Test helpers: build an app on 127.0.0.1:0 with overrides, and capture its logs. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Agent, setGlobalDispatcher } from 'undici';
import { buildApp, type App, type BuildOptions } from '../../src/app.js';
import { loadConfig, type ConfigInput } from '../../src/core/config/index.js';
import { REDACT_PATHS } from '../../src/core/log/log.js';

// Short keep-alive so idle client sockets do not hold a finished test process open.
setGlobalDispatcher(new Agent({ keepAliveTimeout: 20, keepAliveMaxTimeout: 20 }));

export const TEST_KEY = 'test-key-0123456789abcdef';
export const OTHER_KEY = 'other-key-0123456789abcdef';

export interface LogCapture {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
  text(): string;
}

export function captureLogs(level = 'info'): LogCapture {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) {
        if (!l) continue;
        raw.push(l);
        lines.push(JSON.parse(l) as Record<string, unknown>);
      }
      cb();
    },
  });
  const logger = pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, stream);
  return { logger, lines, text: () => raw.join('\n') };
}

export interface TestApp {
  app: App;
  url: string;
  port: number;
  logs: LogCapture;
  close(): Promise<void>;
}

export async function startApp(overrides: ConfigInput = {}, opts: BuildOptions = {}, env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const config = loadConfig({
    env,
    overrides: {
      ...overrides,
      // A line per request, as tests read them (the default, `aggregate`, counts public answers).
      log: { requests: 'all', ...overrides.log },
      server: { host: '127.0.0.1', port: 0, ...overrides.server },
      // The devnet is the chain under test, not background work: at the product's nice 10 it gets
      // about a tenth of a core on a machine busy with other test files, and its indexer then takes
      // seconds to answer an input check (503 INPUTS_UNCHECKED) or a subscription.
      devnet: { threadNice: 0, ...overrides.devnet },
      auth: { apiKeys: [TEST_KEY, OTHER_KEY], ...overrides.auth },
    },
  });
  const logs = captureLogs();
  const app = await buildApp(config, { logger: logs.logger, devnet: false, modules: [], print: () => undefined, ...opts });
  const port = await app.listen();
  return { app, url: `http://127.0.0.1:${port}`, port, logs, close: () => app.close() };
}

/** A promise with its resolver, for controlling when a handler finishes. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
