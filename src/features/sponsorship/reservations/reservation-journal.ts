/**
 * The DUST reservation journal: answered sponsorships keep their UTXO reserved across a restart.
 *
 * A sponsorship's answer carries a fee intent that spends one server DUST UTXO and stays valid
 * until its TTL, shortly before the reservation's reclaim deadline (reservations.ts). The
 * allocator table lives in memory, so without this a restarted server would see that UTXO as
 * FREE and could build a second fee intent on it: both transactions valid on their own, the
 * second to land failing on a spent DUST nullifier.
 *
 * So every answered reservation is appended here — network, wallet index, the allocator's key of
 * the UTXO, deadline — before the answer leaves. At start the file is read, expired lines are
 * dropped and the rest rewritten; once a network's wallets have synced, each remaining UTXO the
 * chain still shows unspent is reserved again until its original deadline (reservation-restore.ts).
 *
 * The file is `<dir>/dust-reservations.jsonl`, one JSON object per line. Writes are plain
 * `write(2)` calls without fsync: a process crash loses nothing (the kernel holds the data), a
 * power loss can lose the last lines. A torn last line is skipped on load. Lines are never
 * removed when a reservation ends early (spent, released): such a line only expires, and a spent
 * UTXO is no longer in the wallet to be reserved again. The file is compacted (expired lines
 * dropped) after as many new lines as it held, and at least `compactSlack`: each line is rewritten
 * a bounded number of times.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';

export const JOURNAL_FILE = 'dust-reservations.jsonl';

export interface JournalEntry {
  readonly network: string;
  /** Index of the server wallet in the configured seeds. */
  readonly wallet: number;
  /** The allocator's 64-bit key of the UTXO (utxoKey: low bits of its nonce). */
  readonly key: bigint;
  /** Reclaim deadline of the reservation, ms since the epoch. */
  readonly deadline: number;
}

interface JournalOptions {
  dir: string;
  clock: Clock;
  logger: Logger;
  /** Fewest lines appended between two compactions (default 1 024). */
  compactSlack?: number;
}

interface JournalStats {
  path: string;
  /** Unexpired lines as of the last compaction plus the lines written since. */
  entries: number;
  writeErrors: number;
}

export class ReservationJournal {
  readonly path: string;
  private fd: number;
  private live: JournalEntry[];
  private readonly loaded: Map<string, JournalEntry[]>;
  private linesSinceCompaction = 0;
  /** Entries the file held after the last compaction: the next one waits for at least as many new lines. */
  private linesAtCompaction: number;
  private writeErrors = 0;
  private readonly compactSlack: number;

  private constructor(
    private readonly opts: JournalOptions,
    path: string,
    live: JournalEntry[],
  ) {
    this.path = path;
    this.live = live;
    this.compactSlack = opts.compactSlack ?? 1_024;
    this.linesAtCompaction = live.length;
    this.loaded = new Map();
    for (const e of live) {
      const list = this.loaded.get(e.network) ?? [];
      list.push(e);
      this.loaded.set(e.network, list);
    }
    this.fd = this.rewrite(live);
  }

  /**
   * Reads the journal in `dir` (creating the directory), keeps the unexpired lines, rewrites the
   * file with them and opens it for appending. Throws when the directory or file cannot be
   * written: the server must not start sponsoring with a journal it cannot keep.
   */
  static open(opts: JournalOptions): ReservationJournal {
    mkdirSync(opts.dir, { recursive: true });
    const path = join(opts.dir, JOURNAL_FILE);
    const now = opts.clock.now();
    const live: JournalEntry[] = [];
    let expired = 0;
    let unreadable = 0;
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (line === '') continue;
        const entry = parseLine(line);
        if (!entry) unreadable++;
        else if (entry.deadline <= now) expired++;
        else live.push(entry);
      }
    }
    const journal = new ReservationJournal(opts, path, live);
    opts.logger.info({ path, pending: live.length, expired, unreadable }, 'DUST reservation journal opened');
    return journal;
  }

  /** Unexpired entries read at start for one network: the reservations to restore. */
  pending(network: string): readonly JournalEntry[] {
    return this.loaded.get(network) ?? [];
  }

  /** Pending entries of a network have been restored (or found gone): forget them. */
  restored(network: string): void {
    this.loaded.delete(network);
  }

  /**
   * Appends one answered reservation. Returns false when the write failed: the reservation is
   * still held in memory, only a restart could lose it; the failure is logged and counted.
   */
  record(entry: JournalEntry): boolean {
    this.live.push(entry);
    try {
      if (this.fd < 0) throw new Error('the journal is closed');
      writeSync(this.fd, formatLine(entry));
    } catch (err) {
      this.writeErrors++;
      this.opts.logger.error(
        { err, path: this.path, network: entry.network },
        'could not write the DUST reservation journal; this reservation would not survive a restart',
      );
      return false;
    }
    if (++this.linesSinceCompaction >= Math.max(this.compactSlack, this.linesAtCompaction)) this.compact();
    return true;
  }

  stats(): JournalStats {
    return { path: this.path, entries: this.live.length, writeErrors: this.writeErrors };
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  /** Drops expired lines: the file is rewritten beside and renamed over, so a crash leaves one or the other. */
  private compact(): void {
    const now = this.opts.clock.now();
    const live = this.live.filter((e) => e.deadline > now);
    try {
      const fd = this.rewrite(live);
      closeSync(this.fd);
      this.fd = fd;
      this.live = live;
      this.linesAtCompaction = live.length;
      this.linesSinceCompaction = 0;
    } catch (err) {
      this.writeErrors++;
      this.opts.logger.error({ err, path: this.path }, 'could not compact the DUST reservation journal; appending to the old file');
      this.linesSinceCompaction = 0;
    }
  }

  private rewrite(entries: readonly JournalEntry[]): number {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, entries.map(formatLine).join(''));
    renameSync(tmp, this.path);
    return openSync(this.path, 'a');
  }
}

function formatLine(e: JournalEntry): string {
  return `${JSON.stringify({ network: e.network, wallet: e.wallet, key: e.key.toString(), deadline: e.deadline })}\n`;
}

function parseLine(line: string): JournalEntry | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { network, wallet, key, deadline } = v as Record<string, unknown>;
  if (typeof network !== 'string' || !Number.isSafeInteger(wallet) || (wallet as number) < 0) return undefined;
  if (typeof key !== 'string' || !/^[0-9]{1,20}$/.test(key) || BigInt(key) >= 2n ** 64n) return undefined;
  if (!Number.isSafeInteger(deadline) || (deadline as number) < 0) return undefined;
  return { network, wallet: wallet as number, key: BigInt(key), deadline: deadline as number };
}
