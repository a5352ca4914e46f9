/**
 * The development key: minted when no API key is configured, so the proving API is usable at once.
 * With a state directory it is kept there (`dev-key`, mode 0600) and the same key works after a
 * restart; without one it lives as long as the process. Announced in a box of its own, so it is
 * not lost among the start-up log lines.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintKey } from './auth.js';

export const DEV_KEY_FILE = 'dev-key';
const KEY_SHAPE = /^ngk_[A-Za-z0-9_-]{20,200}$/;

interface DevKey {
  raw: string;
  /** The file it is kept in, when a state directory is set. */
  file?: string;
}

/** The kept key of `stateDir` if it holds a well-formed one, else a new one (kept there when a directory is given). */
export function devKey(stateDir: string): DevKey {
  if (stateDir === '') return { raw: mintKey() };
  const file = join(stateDir, DEV_KEY_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (KEY_SHAPE.test(kept)) return { raw: kept, file };
  }
  const raw = mintKey();
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, `${raw}\n`, { mode: 0o600 });
  return { raw, file };
}

/** The announcement: the key on a line of its own, framed. */
export function devKeyBox(key: DevKey): string {
  const lines = [
    'nightgate: no API key configured',
    key.file
      ? `development key (kept in ${key.file}): ${key.raw}`
      : `development key (a new one each start; set NIGHTGATE_DEVNET_STATE_DIR to keep it): ${key.raw}`,
    'send it as X-API-Key or Authorization: Bearer; configure auth.keys for production',
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`].join('\n');
}
