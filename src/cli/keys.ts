/**
 * `nightgate keys list` and `nightgate keys revoke <id>`: the API keys of the config file
 * (`--config PATH`, else NIGHTGATE_CONFIG). Revoking writes the file (atomically: a temporary
 * file renamed over it, same mode) with `"revoked": true` on that key; a running server applies
 * it on SIGHUP (`systemctl reload nightgate`, or `kill -HUP <pid>`), without a restart. Keys are
 * never printed: only their ids, names, limits and the start of their SHA-256.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { ApiKeyRecord } from '../core/config/index.js';

export class KeysCliError extends Error {}

interface ConfigFile {
  auth?: { keys?: unknown[] };
  [k: string]: unknown;
}

export function configPath(args: string[], env: NodeJS.ProcessEnv): string {
  const i = args.indexOf('--config');
  const path = i >= 0 ? args[i + 1] : env['NIGHTGATE_CONFIG'];
  if (!path) throw new KeysCliError('no config file: pass --config PATH or set NIGHTGATE_CONFIG');
  return path;
}

function readConfig(path: string): { file: ConfigFile; keys: ApiKeyRecord[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeysCliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let file: ConfigFile;
  try {
    file = JSON.parse(text) as ConfigFile;
  } catch (err) {
    throw new KeysCliError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (file === null || typeof file !== 'object' || Array.isArray(file)) throw new KeysCliError(`${path} is not a JSON object`);
  const keys = file.auth?.keys ?? [];
  if (!Array.isArray(keys)) throw new KeysCliError(`${path}: auth.keys is not a list`);
  keys.forEach((k, i) => {
    if (!Value.Check(ApiKeyRecord, k))
      throw new KeysCliError(`${path}: auth.keys[${i}] is not a key record: ${Value.Errors(ApiKeyRecord, k).First()?.message ?? 'invalid'}`);
  });
  return { file, keys: keys as ApiKeyRecord[] };
}

export function listKeys(path: string, json: boolean): string {
  const { keys } = readConfig(path);
  const rows = keys.map((k) => ({
    id: k.id,
    name: k.name ?? '',
    state: k.revoked ? 'revoked' : 'active',
    sha256: `${k.sha256.slice(0, 12)}…`,
    rateLimit: k.rateLimit ? `${k.rateLimit.limit}/${k.rateLimit.windowMs}ms` : 'default',
    dustBudget: k.dustBudget ?? 'default',
    maxFee: k.maxFee ?? 'default',
  }));
  if (json) return JSON.stringify(rows, null, 2) + '\n';
  if (rows.length === 0) return `no keys in ${path} (mint one with: nightgate keys create --id ID)\n`;
  const cols = ['id', 'name', 'state', 'sha256', 'rateLimit', 'dustBudget', 'maxFee'] as const;
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols), ...rows.map((r) => line(cols.map((c) => r[c])))].join('\n') + '\n';
}

/** Marks the key revoked in the file; returns what to tell the operator. */
export function revokeKey(path: string, id: string): string {
  const { file, keys } = readConfig(path);
  const key = keys.find((k) => k.id === id);
  if (!key) throw new KeysCliError(`no key with id "${id}" in ${path} (ids: ${keys.map((k) => k.id).join(', ') || 'none'})`);
  if (key.revoked) return `key "${id}" is already revoked in ${path}\n`;
  key.revoked = true;
  const tmp = `${path}.${process.pid}.tmp`;
  const mode = statSync(path).mode & 0o777;
  writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n', { mode });
  renameSync(tmp, path);
  return `key "${id}" revoked in ${path}.\nApply it to a running server without a restart: systemctl reload nightgate (or kill -HUP <pid>)\n`;
}
