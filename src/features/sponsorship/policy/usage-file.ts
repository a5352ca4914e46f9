/**
 * The usage ledger's file (usage.ts), `usage.json`:
 *
 *   {"version":1,"days":[{"day":"2025-06-01","key":"shop","networks":{"preview":{"sponsorships":3,
 *    "dust":"1200","expired":1,"refusals":{"allow.contracts":2}}},"users":[["alice",2,"800"]]}]}
 *
 * DUST in SPECK as decimal strings; users as `[user, sponsorships, dust]`. `decodeDays` throws on
 * anything else, so a damaged file is set aside whole rather than half read.
 */
const DAY_MS = 86_400_000;

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

export function encodeDays(days: ReadonlyMap<number, ReadonlyMap<string, KeyDay>>): unknown {
  const out: unknown[] = [];
  for (const [day, keys] of [...days].sort(([a], [b]) => a - b)) {
    for (const [key, kd] of keys) {
      out.push({
        day: new Date(day * DAY_MS).toISOString().slice(0, 10),
        key,
        networks: Object.fromEntries([...kd.networks].map(([n, t]) => [n, { sponsorships: t.sponsorships, dust: t.dust.toString(), expired: t.expired, refusals: Object.fromEntries(t.refusals) }])),
        users: [...kd.users].map(([u, v]) => [u, v.sponsorships, v.dust.toString()]),
      });
    }
  }
  return { version: VERSION, days: out };
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

/** The days a file holds, by day number and key id; throws when the file is not one this module wrote. */
export function decodeDays(v: unknown): Map<number, Map<string, KeyDay>> {
  if (!isObject(v) || v['version'] !== VERSION || !Array.isArray(v['days'])) fail('not a version 1 usage file');
  const days = new Map<number, Map<string, KeyDay>>();
  for (const e of v['days'] as unknown[]) {
    if (!isObject(e) || typeof e['key'] !== 'string' || typeof e['day'] !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(e['day'])) fail('an entry has no key or day');
    const ms = Date.parse(`${e['day']}T00:00:00Z`);
    if (!Number.isFinite(ms)) fail(`day ${e['day']} is no date`);
    const what = `${e['key']} ${e['day']}`;
    if (!isObject(e['networks']) || !Array.isArray(e['users'])) fail(`${what} has no networks or users`);
    const networks = new Map(Object.entries(e['networks']).map(([n, t]) => [n, tallyOf(t, `${what} ${n}`)] as const));
    const users = new Map<string, { sponsorships: number; dust: bigint }>();
    for (const u of e['users'] as unknown[]) {
      if (!Array.isArray(u) || u.length !== 3 || typeof u[0] !== 'string') fail(`${what} has a malformed user`);
      users.set(u[0], { sponsorships: count(u[1], `${what} user`), dust: speck(u[2], `${what} user`) });
    }
    const day = Math.floor(ms / DAY_MS);
    let keys = days.get(day);
    if (keys === undefined) days.set(day, (keys = new Map()));
    keys.set(e['key'], { networks, users });
  }
  return days;
}
