/**
 * The usage ledger: what each API key's DUST paid for, read by GET /usage (usage-routes.ts) and
 * exposed as the key's Prometheus counters.
 *
 * Kept per key, UTC day and network: sponsorships answered, DUST they cost (SPECK), those reclaimed
 * unspent (`expired`: counted in the day the sponsorship was answered, its fee taken back from that
 * day's DUST) and refusals by reason (the policy rule, else the error code). Per key and day, per
 * user: sponsorships and DUST, for at most `maxUsersPerDay` users (the rest under `(other)`); a
 * sponsorship with several users counts for each. The users of days older than `userDays` are
 * dropped, and whole days older than `retentionDays`: memory is bounded by
 * keys × (retentionDays + userDays × maxUsersPerDay) entries.
 *
 * With a state directory (`load`) the ledger is kept in `<dir>/usage/`, one file per UTC day
 * (usage-file.ts), each written beside and renamed over (a crash leaves the old file or the new
 * one). Only the days changed since the last write are written, at most once per `flushIntervalMs`
 * after a change and at `close`: a crash loses at most that interval, and a write costs one day,
 * not the retention. A day file that cannot be read is logged and moved aside
 * (`<day>.json.corrupt-<ms>`); the other days are read.
 *
 * The Prometheus counters (`collectUsage`, usage-component.ts) count since the process started,
 * never back: an expired sponsorship is counted as `outcome="expired"`, its fee stays in the DUST
 * counter.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';
import type { UsageRecorder } from './ports.js';
import { DAY_MS, dayName, dayOf, decodeDay, listDays, setAside, writeDay, type KeyDay, type Tally } from './usage-file.js';

/** The directory of the day files, in the state directory. */
export const USAGE_DIR = 'usage';
/** Users beyond the bound of a key's day, reasons beyond the bound of a tally. */
const OTHER = '(other)';
/** Users and reasons are clipped to this many characters. */
const MAX_NAME = 128;
/** Distinct refusal reasons per tally, and outcomes per key in the counters. */
const MAX_REASONS = 64;
/** Users listed per key in an answer grouped by user. */
const TOP_USERS = 100;

export interface UsageLedgerOptions {
  clock: Clock;
  logger: Logger;
  /** Users told apart per key and day (default 10 000); beyond, counted under `(other)`. */
  maxUsersPerDay?: number;
  /** Days kept (default 400). */
  retentionDays?: number;
  /** Days whose users are kept, today's included (default 31); older days keep their totals. */
  userDays?: number;
  /** Fewest ms between two writes of the file (default 30 000). */
  flushIntervalMs?: number;
  /** Runs `fn` once after `ms` and returns its cancel (default: an unref'd setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
}

export type GroupBy = 'day' | 'user';

interface UsageQuery {
  keys: readonly string[] | 'all';
  /** Ms since the epoch; a day is counted when it overlaps [from, to). */
  from: number;
  to: number;
  groupBy: GroupBy;
}

interface TallyJson {
  sponsorships: number;
  dust: string;
  expired: number;
  refusals: Record<string, number>;
}

interface KeyUsage extends TallyJson {
  keyId: string;
  dustUnit: 'SPECK';
  networks: Record<string, TallyJson>;
  days?: Array<TallyJson & { day: string }>;
  users?: Array<{ user: string; sponsorships: number; dust: string }>;
}

interface UsageAnswer {
  from: string;
  to: string;
  groupBy: GroupBy;
  keys: KeyUsage[];
}

const newTally = (): Tally => ({ sponsorships: 0, dust: 0n, expired: 0, refusals: new Map() });
const clip = (s: string): string => (s.length > MAX_NAME ? s.slice(0, MAX_NAME) : s);

function bump(map: Map<string, number>, name: string, max: number): void {
  const n = map.has(name) || map.size < max ? name : OTHER;
  map.set(n, (map.get(n) ?? 0) + 1);
}

function addTally(into: Tally, t: Tally): void {
  into.sponsorships += t.sponsorships;
  into.dust += t.dust;
  into.expired += t.expired;
  for (const [r, n] of t.refusals) into.refusals.set(r, (into.refusals.get(r) ?? 0) + n);
}

const tallyJson = (t: Tally): TallyJson => ({
  sponsorships: t.sponsorships,
  dust: t.dust.toString(),
  expired: t.expired,
  refusals: Object.fromEntries([...t.refusals].sort((a, b) => b[1] - a[1])),
});

interface Totals {
  outcomes: Map<string, number>;
  dust: bigint;
}

export class UsageLedger implements UsageRecorder {
  /** Day → key id → that key's day. */
  private readonly days = new Map<number, Map<string, KeyDay>>();
  /** Since the process started, for the counters. */
  private readonly totals = new Map<string, Totals>();
  private readonly maxUsers: number;
  private readonly retentionDays: number;
  private readonly userDays: number;
  private readonly interval: number;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private dir: string | undefined;
  /** Days changed (or dropped) since their file was last written. */
  private readonly dirty = new Set<number>();
  private cancelFlush: (() => void) | undefined;
  private lastFlushAt = 0;
  private prunedDay = -1;
  /** The newest day whose users are dropped. */
  private trimmedDay = -1;
  private writeErrors = 0;
  private closed = false;

  constructor(private readonly opts: UsageLedgerOptions) {
    this.maxUsers = opts.maxUsersPerDay ?? 10_000;
    this.retentionDays = opts.retentionDays ?? 400;
    this.userDays = opts.userDays ?? 31;
    this.interval = opts.flushIntervalMs ?? 30_000;
    this.schedule =
      opts.schedule ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return () => clearTimeout(t);
      });
  }

  /** The directory of the day files, when kept. */
  get path(): string | undefined {
    return this.dir;
  }

  sponsored(keyId: string, network: string, users: readonly string[], fee: bigint, at: number): void {
    const kd = this.keyDay(keyId, at);
    if (kd === undefined) return;
    const keepUsers = dayOf(at) > this.trimmedDay;
    const t = tallyOf(kd, network);
    t.sponsorships++;
    t.dust += fee;
    for (const u of keepUsers ? new Set(users.map(clip)) : []) {
      const name = kd.users.has(u) || kd.users.size < this.maxUsers ? u : OTHER;
      const ut = kd.users.get(name) ?? { sponsorships: 0, dust: 0n };
      ut.sponsorships++;
      ut.dust += fee;
      kd.users.set(name, ut);
    }
    const tot = this.totalsOf(keyId);
    bump(tot.outcomes, 'sponsored', MAX_REASONS);
    tot.dust += fee;
    this.changed(dayOf(at));
  }

  expired(keyId: string, network: string, users: readonly string[], fee: bigint, answeredAt: number): void {
    bump(this.totalsOf(keyId).outcomes, 'expired', MAX_REASONS);
    const kd = this.keyDay(keyId, answeredAt);
    if (kd !== undefined) {
      const t = tallyOf(kd, network);
      t.expired++;
      t.dust = t.dust > fee ? t.dust - fee : 0n;
      for (const u of new Set(users.map(clip))) {
        const ut = kd.users.get(u) ?? kd.users.get(OTHER);
        if (ut !== undefined) ut.dust = ut.dust > fee ? ut.dust - fee : 0n;
      }
      this.changed(dayOf(answeredAt));
    }
  }

  refused(keyId: string, network: string, reason: string, at: number): void {
    bump(this.totalsOf(keyId).outcomes, clip(reason), MAX_REASONS);
    const kd = this.keyDay(keyId, at);
    if (kd !== undefined) {
      bump(tallyOf(kd, network).refusals, clip(reason), MAX_REASONS);
      this.changed(dayOf(at));
    }
  }

  /** The keys with anything counted in a day overlapping [from, to). */
  keyIds(from: number, to: number): string[] {
    const ids = new Set<string>();
    for (const [day, keys] of this.days) if (overlaps(day, from, to)) for (const id of keys.keys()) ids.add(id);
    return [...ids].sort();
  }

  /** Each asked key's usage (zeros for a key with none), or every key with some when `keys` is 'all'. */
  query(q: UsageQuery): UsageAnswer {
    const ids = q.keys === 'all' ? this.keyIds(q.from, q.to) : [...new Set(q.keys)];
    const days = [...this.days.keys()].filter((d) => overlaps(d, q.from, q.to)).sort((a, b) => a - b);
    const keys = ids.map((keyId) => {
      const sum = newTally();
      const networks = new Map<string, Tally>();
      const perDay: Array<TallyJson & { day: string }> = [];
      const users = new Map<string, { sponsorships: number; dust: bigint }>();
      for (const d of days) {
        const kd = this.days.get(d)!.get(keyId);
        if (kd === undefined) continue;
        const daySum = newTally();
        for (const [n, t] of kd.networks) {
          addTally(daySum, t);
          const nt = networks.get(n) ?? newTally();
          addTally(nt, t);
          networks.set(n, nt);
        }
        addTally(sum, daySum);
        if (q.groupBy === 'day') perDay.push({ day: dayName(d), ...tallyJson(daySum) });
        else {
          for (const [u, ut] of kd.users) {
            const acc = users.get(u) ?? { sponsorships: 0, dust: 0n };
            acc.sponsorships += ut.sponsorships;
            acc.dust += ut.dust;
            users.set(u, acc);
          }
        }
      }
      const usage: KeyUsage = {
        keyId,
        ...tallyJson(sum),
        dustUnit: 'SPECK',
        networks: Object.fromEntries([...networks].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, t]) => [n, tallyJson(t)])),
      };
      if (q.groupBy === 'day') usage.days = perDay;
      else usage.users = topUsers(users);
      return usage;
    });
    return { from: new Date(q.from).toISOString(), to: new Date(q.to).toISOString(), groupBy: q.groupBy, keys };
  }

  /** Sponsorships by outcome and DUST per key since the process started (the Prometheus counters). */
  counters(): Array<{ keyId: string; outcomes: ReadonlyMap<string, number>; dust: bigint }> {
    return [...this.totals].map(([keyId, t]) => ({ keyId, outcomes: t.outcomes, dust: t.dust }));
  }

  stats(): { path: string | null; days: number; writeErrors: number } {
    return { path: this.path ?? null, days: this.days.size, writeErrors: this.writeErrors };
  }

  /**
   * Keeps the ledger in `<dir>/usage/` from now on, adding the days its files hold. A file that
   * cannot be read is moved aside and logged; a directory that cannot be made throws.
   */
  load(stateDir: string): void {
    const dir = join(stateDir, USAGE_DIR);
    mkdirSync(dir, { recursive: true });
    this.dir = dir;
    this.lastFlushAt = this.opts.clock.now();
    this.prune(true);
    for (const { day, path } of listDays(dir)) {
      // A day past the retention: dropped as it would have been had the process kept running.
      if (day <= this.prunedDay) {
        this.dirty.add(day);
        continue;
      }
      let read: Map<string, KeyDay>;
      try {
        read = decodeDay(readFileSync(path, 'utf8'), day);
      } catch (err) {
        const movedTo = setAside(path, this.opts.clock.now());
        this.opts.logger.error({ err, path, movedTo }, 'a usage file cannot be read: moved aside, that day starts empty');
        continue;
      }
      const mine = this.days.get(day) ?? new Map<string, KeyDay>();
      for (const [id, kd] of read) if (!mine.has(id)) mine.set(id, kd);
      this.days.set(day, mine);
      if (day <= this.trimmedDay) this.trimUsers(day);
    }
    this.scheduleFlush();
    this.opts.logger.info({ path: dir, days: this.days.size }, 'usage ledger loaded');
  }

  /** Writes the days changed since their last write, now (when a directory is set). */
  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (this.dir === undefined || this.dirty.size === 0) return;
    this.lastFlushAt = this.opts.clock.now();
    let failed = 0;
    for (const day of [...this.dirty]) {
      try {
        writeDay(this.dir, day, this.days.get(day));
        this.dirty.delete(day);
      } catch (err) {
        if (failed++ === 0)
          this.opts.logger.error({ err, dir: this.dir, day: dayName(day) }, 'could not write the usage file; retrying after the flush interval');
      }
    }
    if (failed > 0) {
      this.writeErrors++;
      this.scheduleFlush();
    }
  }

  /** Writes what is pending; later records are kept in memory only. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
  }

  private changed(day: number): void {
    this.dirty.add(day);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.dir === undefined || this.closed || this.cancelFlush !== undefined || this.dirty.size === 0) return;
    const wait = Math.max(0, this.lastFlushAt + this.interval - this.opts.clock.now());
    this.cancelFlush = this.schedule(() => {
      this.cancelFlush = undefined;
      this.flush();
    }, wait);
  }

  /** The key's day holding `at`, made if new; undefined when that day is older than the retention. */
  private keyDay(keyId: string, at: number): KeyDay | undefined {
    this.prune(false);
    const day = dayOf(at);
    if (day <= this.prunedDay) return undefined;
    let keys = this.days.get(day);
    if (keys === undefined) this.days.set(day, (keys = new Map()));
    let kd = keys.get(keyId);
    if (kd === undefined) keys.set(keyId, (kd = { networks: new Map(), users: new Map() }));
    return kd;
  }

  /** Drops the days past the retention and the users of days past `userDays` (once per day, or now when `force`). */
  private prune(force: boolean): void {
    const today = dayOf(this.opts.clock.now());
    const last = today - this.retentionDays;
    if (!force && last === this.prunedDay) return;
    this.prunedDay = last;
    this.trimmedDay = today - this.userDays;
    for (const d of this.days.keys()) {
      if (d <= last) {
        this.days.delete(d);
        this.dirty.add(d);
      } else if (d <= this.trimmedDay) this.trimUsers(d);
    }
  }

  /** Drops a day's users (its file is written without them). */
  private trimUsers(day: number): void {
    for (const kd of this.days.get(day)?.values() ?? []) {
      if (kd.users.size === 0) continue;
      kd.users.clear();
      this.dirty.add(day);
    }
  }

  private totalsOf(keyId: string): Totals {
    let t = this.totals.get(keyId);
    if (t === undefined) this.totals.set(keyId, (t = { outcomes: new Map(), dust: 0n }));
    return t;
  }
}

function tallyOf(kd: KeyDay, network: string): Tally {
  let t = kd.networks.get(network);
  if (t === undefined) kd.networks.set(network, (t = newTally()));
  return t;
}

function overlaps(day: number, from: number, to: number): boolean {
  return day * DAY_MS < to && (day + 1) * DAY_MS > from;
}

function topUsers(users: Map<string, { sponsorships: number; dust: bigint }>): Array<{ user: string; sponsorships: number; dust: string }> {
  return [...users]
    .sort(([ua, a], [ub, b]) => b.sponsorships - a.sponsorships || (b.dust > a.dust ? 1 : b.dust < a.dust ? -1 : ua < ub ? -1 : 1))
    .slice(0, TOP_USERS)
    .map(([user, u]) => ({ user, sponsorships: u.sponsorships, dust: u.dust.toString() }));
}
