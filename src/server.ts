/**
 * Process entry: load config, build the app, listen, and shut down gracefully on SIGINT/SIGTERM
 * exactly once however many signals arrive; SIGHUP reloads the keys (src/core/guards/reload.ts). Exit codes: 0 clean, 1 start-up failure
 * (bad config, port in use, no native uWS), 2 shutdown failure.
 */
import { ConfigError, loadConfig } from './core/config/index.js';
import { createLogger } from './core/log/log.js';
import { BoundedOutput } from './core/log/output.js';
import { UwsLoadError } from './core/http/uws.js';
import { ListenError } from './core/http/listen-failure.js';
import { ConfigReloader } from './core/guards/reload.js';

export async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`nightgate: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logOutput = new BoundedOutput({ fd: 1, maxBytes: config.log.bufferBytes, maxBytesPerSecond: config.log.maxBytesPerSecond });
  const logger = createLogger(config.log.level, logOutput);
  // SIGHUP: read the configuration again; API keys and trusted networks change live, connections
  // stay open, and a file that does not load is refused with the running configuration kept.
  // Installed first, so a SIGHUP during start-up does not end the process (its default action).
  let reloader: ConfigReloader | undefined;
  let stopping = false;
  process.on('SIGHUP', () => {
    if (stopping) return;
    if (reloader) reloader.reload();
    else logger.warn({ code: 'CONFIG_RELOAD_REFUSED' }, 'SIGHUP during start-up: ignored, send it again once listening');
  });
  let app;
  try {
    const { buildApp } = await import('./app.js');
    app = await buildApp(config, { logger, logOutput });
    const port = await app.listen();
    logger.info({ host: config.server.host, port }, `nightgate listening on http://${config.server.host}:${port}`);
    // Last, on lines of its own: the key a developer needs first is not lost above the start-up log.
    if (app.devKeyNotice) logOutput.write(`${app.devKeyNotice}\n`);
  } catch (err) {
    const msg = err instanceof UwsLoadError || err instanceof ConfigError || err instanceof ListenError ? err.message : ((err as Error).stack ?? String(err));
    process.stderr.write(`nightgate: failed to start: ${msg}\n`);
    logger.flush();
    await app?.close().catch(() => undefined);
    process.exit(1);
  }
  const started = app;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    stopping = true;
    if (signals > 1) {
      logger.warn({ signal }, 'shutdown already in progress');
      return;
    }
    logger.info({ signal }, 'signal received: graceful shutdown');
    started.close().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        logger.flush();
        process.exit(2);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const reloads = started.metrics?.configReloads;
  reloader = new ConfigReloader({
    config,
    keys: started.keys,
    onReload: reloads && ((outcome) => reloads.inc({ outcome })),
    logger: logger.child({ module: 'config' }),
  });
}
