/**
 * A day file of the usage ledger (usage.ts), `<dir>/usage/2025-06-01.json`:
 *
 *   {"version":1,"day":"2025-06-01","keys":{"shop":{"networks":{"preview":{"sponsorships":3,
 *    "dust":"1200","expired":1,"refusals":{"allow.contracts":2}}},"users":[["alice",2,"800"]]}}}
 *
 * DUST in SPECK as decimal strings; users as `[user, sponsorships, dust]`. `decodeDay` throws on
 * anything else, so a damaged file is set aside whole rather than half read.
 */
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DAY_MS = 86_400_000;

export interface Tally {
  sponsorships: number;
  dust: bigint;
  expired: number;
  refusals: Map<string, number>;
}

export interface KeyDay {
  readonly networks: Map<string, Tally>;
  readonly users: Map<string, { sponsorships: number; dust: bigint }>;
}

const VERSION = 1;
const DAY_NAME = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day of `ms`, as days since the epoch. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
export const dayName = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The file name of a day. */
const dayFile = (day: number): string => `${dayName(day)}.json`;

/** The UTC day a `YYYY-MM-DD` names, or undefined for anything else (2025-02-30, which parses as 2 March, included). */
export function dayOfName(name: string): number | undefined {
  if (!DAY_NAME.test(name)) return undefined;
  const ms = Date.parse(`${name}T00:00:00Z`);
  return Number.isFinite(ms) && dayName(dayOf(ms)) === name ? dayOf(ms) : undefined;
}

/** The day a file name is of, or undefined for a name that is not a day file. */
function dayOfFile(name: string): number | undefined {
  return name.endsWith('.json') ? dayOfName(name.slice(0, -'.json'.length)) : undefined;
}

function encodeDay(day: number, keys: ReadonlyMap<string, KeyDay>): string {
  const out: Record<string, unknown> = {};
  for (const [key, kd] of keys) {
    out[key] = {
      networks: Object.fromEntries(
        [...kd.networks].map(([n, t]) => [
          n,
          { sponsorships: t.sponsorships, dust: t.dust.toString(), expired: t.expired, refusals: Object.fromEntries(t.refusals) },
        ]),
      ),
      users: [...kd.users].map(([u, v]) => [u, v.sponsorships, v.dust.toString()]),
    };
  }
  return JSON.stringify({ version: VERSION, day: dayName(day), keys: out });
}

function fail(what: string): never {
  throw new Error(`usage file: ${what}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown, what: string): number => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : fail(`${what} is not a count`));
const speck = (v: unknown, what: string): bigint => (typeof v === 'string' && /^[0-9]{1,40}$/.test(v) ? BigInt(v) : fail(`${what} is not an amount`));

function tallyOf(v: unknown, what: string): Tally {
  if (!isObject(v) || !isObject(v['refusals'])) fail(`${what} is not a tally`);
  const refusals = new Map(Object.entries(v['refusals']).map(([r, n]) => [r, count(n, `${what}.refusals`)] as const));
  return { sponsorships: count(v['sponsorships'], what), dust: speck(v['dust'], what), expired: count(v['expired'], what), refusals };
}

/** The keys a day file holds; throws when the text is not a file this module wrote for `day`. */
export function decodeDay(text: string, day: number): Map<string, KeyDay> {
  const v = JSON.parse(text) as unknown;
  if (!isObject(v) || v['version'] !== VERSION || !isObject(v['keys'])) fail('not a version 1 usage day');
  if (v['day'] !== dayName(day)) fail(`the file of ${dayName(day)} says it is of ${String(v['day'])}`);
  const keys = new Map<string, KeyDay>();
  for (const [key, e] of Object.entries(v['keys'])) {
    const what = `${key} ${dayName(day)}`;
    if (!isObject(e) || !isObject(e['networks']) || !Array.isArray(e['users'])) fail(`${what} has no networks or users`);
    const networks = new Map(Object.entries(e['networks']).map(([n, t]) => [n, tallyOf(t, `${what} ${n}`)] as const));
    const users = new Map<string, { sponsorships: number; dust: bigint }>();
    for (const u of e['users'] as unknown[]) {
      if (!Array.isArray(u) || u.length !== 3 || typeof u[0] !== 'string') fail(`${what} has a malformed user`);
      users.set(u[0], { sponsorships: count(u[1], `${what} user`), dust: speck(u[2], `${what} user`) });
    }
    keys.set(key, { networks, users });
  }
  return keys;
}

/** The day files in `dir`: each one's day and path (other names are left alone). */
export function listDays(dir: string): Array<{ day: number; path: string }> {
  const out: Array<{ day: number; path: string }> = [];
  for (const name of readdirSync(dir)) {
    const day = dayOfFile(name);
    if (day !== undefined) out.push({ day, path: join(dir, name) });
  }
  return out;
}

/** Writes a day's file beside and renames it over (a crash leaves the old or the new); a day dropped (no keys) has its file removed. */
export function writeDay(dir: string, day: number, keys: ReadonlyMap<string, KeyDay> | undefined): void {
  const path = join(dir, dayFile(day));
  if (keys === undefined) return rmSync(path, { force: true });
  writeFileSync(`${path}.tmp`, encodeDay(day, keys));
  renameSync(`${path}.tmp`, path);
}

/** Moves an unreadable file aside as `<path>.corrupt-<now>`, and says where (where it stays if it cannot be moved: the day's next write replaces it). */
export function setAside(path: string, now: number): string {
  const aside = `${path}.corrupt-${now}`;
  try {
    renameSync(path, aside);
  } catch {
    // Left in place.
  }
  return aside;
}
