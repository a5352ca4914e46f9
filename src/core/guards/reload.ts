/**
 * Live reload on SIGHUP: the configuration is read again, whole and validated as at
 * start (file and environment); what can change live is applied in one step, the rest is named
 * as needing a restart. A file that does not load is refused and the running configuration kept.
 *
 * Live: `auth.keys` (added, removed, revoked keys and their per-key rate limits, DUST budgets and
 * fee caps) and `auth.trustedNetworks`. Connections stay open: only the key table is swapped, so
 * the next request on any connection is judged by the new keys.
 */
import type { Logger } from 'pino';
import { ConfigError, SETTINGS, loadConfig, type Config } from '../config/index.js';
import type { KeyStore, KeyChanges } from './auth.js';

const LIVE_SETTINGS = ['auth.keys', 'auth.trustedNetworks'] as const;

type ReloadOutcome = { ok: true; changes: KeyChanges; restartNeeded: string[] } | { ok: false; error: string };

function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.split('.')) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string, unknown>)[p];
  return cur;
}

export class ConfigReloader {
  #current: Readonly<Config>;

  constructor(
    private readonly deps: {
      config: Readonly<Config>;
      keys: KeyStore;
      logger: Logger;
      onReload?: ((outcome: 'applied' | 'refused') => void) | undefined;
      load?: () => Readonly<Config>;
    },
  ) {
    this.#current = deps.config;
  }

  /** The configuration in force (the keys of the last reload that was applied). */
  get current(): Readonly<Config> {
    return this.#current;
  }

  reload(): ReloadOutcome {
    const log = this.deps.logger;
    let next: Readonly<Config>;
    try {
      next = (this.deps.load ?? (() => loadConfig()))();
    } catch (err) {
      const error = err instanceof ConfigError ? err.message : (err as Error).message;
      this.deps.onReload?.('refused');
      log.error({ code: 'CONFIG_RELOAD_REFUSED', error }, `config reload refused, the running configuration is kept: ${error}`);
      return { ok: false, error };
    }
    const restartNeeded = SETTINGS.map((s) => s.path).filter(
      (p) => !(LIVE_SETTINGS as readonly string[]).includes(p) && JSON.stringify(at(next, p)) !== JSON.stringify(at(this.#current, p)),
    );
    const changes = this.deps.keys.replace(next.auth.keys, next.auth.trustedNetworks);
    // Only the live part is taken: the rest stays as it runs until a restart.
    this.#current = { ...this.#current, auth: { ...this.#current.auth, keys: next.auth.keys, trustedNetworks: next.auth.trustedNetworks } };
    this.deps.onReload?.('applied');
    log.info({ ...changes, keys: this.deps.keys.counts() }, 'configuration reloaded: API keys and trusted networks applied');
    if (restartNeeded.length > 0)
      log.warn(
        { settings: restartNeeded },
        `configuration reloaded, but these settings changed and take effect only after a restart: ${restartNeeded.join(', ')}`,
      );
    return { ok: true, changes, restartNeeded };
  }
}
