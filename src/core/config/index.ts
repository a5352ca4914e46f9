/**
 * Configuration: read from the environment and an optional JSON file (`NIGHTGATE_CONFIG`), each
 * setting checked against its schema in the settings tree (config/schema.ts), then the rules across
 * settings (config/validate.ts), and frozen. This is the only module that reads `process.env`, and
 * the one the rest of the server imports configuration from. A bad value fails start-up with a
 * message naming the setting and its env var.
 *
 * Precedence: built-in default < JSON file < environment.
 */
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, SETTINGS, type Config, type ConfigInput } from './schema.js';
import { getPath, setPath, type Setting } from './setting.js';
import { ConfigError, checkFileShape, crossCheck } from './validate.js';
import { openSecretFile } from './secret-file.js';

export { ApiKeyRecord, ConfigSchema, SETTINGS, type Config, type ConfigInput } from './schema.js';
export { NETWORKS, type NetworkName, type ProverBackendName } from './networks.js';
export {
  NO_CREDENTIALS,
  credentialsOf,
  indexerUrlOf,
  indexerWsUrlOf,
  isEmbedded,
  nodeRpcUrlOf,
  proverBackendOf,
  proverUrlOf,
  type UpstreamCredentials,
} from './network-endpoints.js';
export { ConfigError } from './validate.js';
export { openSecretFile } from './secret-file.js';
export { redactedConfig, settingsTable } from './describe.js';

/** Removed settings: named in an error that points to what replaced them, never silently ignored. */
const REPLACED: ReadonlyArray<{ path: string; env: string; message: string }> = [
  {
    path: 'server.trustProxy',
    env: 'NIGHTGATE_TRUST_PROXY',
    message:
      'server.trustProxy (NIGHTGATE_TRUST_PROXY) was replaced by server.trustedProxies (NIGHTGATE_TRUSTED_PROXIES): list the ' +
      'CIDRs of your reverse proxies, e.g. NIGHTGATE_TRUSTED_PROXIES=127.0.0.1/32',
  },
];

/** Environment strings → typed values, by the setting's schema kind. */
function fromEnv(setting: Setting, raw: string): unknown {
  const kind = setting.schema.type as string | undefined;
  if (kind === 'array')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  if (kind === 'integer' || kind === 'number') return raw.trim() === '' ? NaN : Number(raw);
  if (kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return raw;
  }
  return raw;
}

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides applied last (tests). */
  overrides?: ConfigInput;
}

/** Build, validate and freeze the configuration. Throws ConfigError naming the bad setting. */
export function loadConfig(opts: LoadOptions = {}): Readonly<Config> {
  const env = opts.env ?? process.env;
  let file: unknown = {};
  const filePath = env['NIGHTGATE_CONFIG'];
  if (filePath) {
    let text: string;
    try {
      text = readFileSync(filePath, 'utf8');
    } catch (err) {
      throw new ConfigError(`NIGHTGATE_CONFIG: cannot read ${filePath}: ${(err as Error).message}`);
    }
    try {
      file = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`NIGHTGATE_CONFIG: ${filePath} is not valid JSON: ${(err as Error).message}`);
    }
    for (const r of REPLACED) if (getPath(file, r.path) !== undefined) throw new ConfigError(r.message);
    checkFileShape(file);
    const secrets = SETTINGS.filter((st) => st.secret === true && !isEmptyValue(getPath(file, st.path))).map((st) => st.path);
    const open = secrets.length > 0 ? openSecretFile(filePath) : undefined;
    if (open) throw new ConfigError(`NIGHTGATE_CONFIG: ${open} (${secrets.join(', ')})`);
  }
  for (const r of REPLACED) if (env[r.env] !== undefined) throw new ConfigError(r.message);
  const out: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    let value: unknown = structuredClone(setting.default);
    let source = 'default';
    const fromFile = getPath(file, setting.path);
    if (fromFile !== undefined) {
      // Checked though the environment may override it: a wrong value must not wait, hidden, for
      // the day the variable is unset.
      checkSetting(setting, fromFile, `config file (${setting.path})`, undefined);
      value = fromFile;
      source = `config file (${setting.path})`;
    }
    const rawEnv = setting.env ? env[setting.env] : undefined;
    let shown: string | undefined;
    if (rawEnv !== undefined) {
      value = fromEnv(setting, rawEnv);
      source = `env ${setting.env}`;
      // What the operator typed, not what it parsed to (NIGHTGATE_PORT=eighty is not "null").
      shown = JSON.stringify(rawEnv);
    }
    const override = getPath(opts.overrides, setting.path);
    if (override !== undefined) {
      value = override;
      source = `override (${setting.path})`;
      shown = undefined;
    }
    checkSetting(setting, value, source, shown);
    setPath(out, setting.path, value);
  }
  // Each leaf was checked above; checking the assembled tree is what makes `out` a Config for the
  // compiler, no cast, and it would catch a leaf the loop left unset.
  if (!Value.Check(ConfigSchema, out)) {
    const first = Value.Errors(ConfigSchema, out).First();
    throw new ConfigError(`the assembled configuration does not match its schema at ${first?.path ?? '/'}: ${first?.message ?? 'invalid'}`);
  }
  crossCheck(out);
  return deepFreeze(out);
}

/** Throws ConfigError naming the setting, where its value came from, the value (`shown`, or as read) and what is wrong. */
function checkSetting(setting: (typeof SETTINGS)[number], value: unknown, source: string, shown: string | undefined): void {
  if (Value.Check(setting.schema, value)) return;
  const first = Value.Errors(setting.schema, value).First();
  const where = setting.env ? `${setting.path} (${setting.env})` : setting.path;
  const what = setting.secret === true ? '<redacted>' : (shown ?? shownValue(false, value, first));
  throw new ConfigError(`invalid setting ${where} from ${source}: ${what} — ${first?.message ?? 'invalid value'}`);
}

/**
 * The wrong value as an error shows it: a scalar whole, a list or record (auth.keys) by the path
 * of its first error and the value there; secrets, and any field named `secret`, never.
 */
function shownValue(secret: boolean, value: unknown, first: { path: string; value: unknown } | undefined): string {
  if (secret) return '<redacted>';
  if (value === null || typeof value !== 'object' || first === undefined) return JSON.stringify(value);
  const inner = /(^|\/)secret(\/|$)/.test(first.path) ? '<redacted>' : (JSON.stringify(first.value) ?? 'nothing');
  return `at ${first.path || '/'} ${inner}`;
}
