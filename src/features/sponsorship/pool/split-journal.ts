/**
 * The keeper's journal of NIGHT UTXOs whose split is in flight (`dust.stateDir`): each with the
 * time its split's fee intent expires, so a restart does not offer them again before then.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const JOURNAL_FILE = 'pool-splits.json';

export class SplitJournal {
  /** `dir`: the network's folder under `dust.stateDir`; undefined, nothing is kept. */
  constructor(private readonly dir: string | undefined) {}

  /** Adds the entries still pending at `now` to `pending` (UTXO id → until, ms). */
  load(pending: Map<string, number>, now: number): void {
    if (!this.dir) return;
    let entries: unknown;
    try {
      entries = JSON.parse(readFileSync(join(this.dir, JOURNAL_FILE), 'utf8'));
    } catch {
      return;
    }
    if (!Array.isArray(entries)) return;
    for (const e of entries as Array<{ utxo?: unknown; until?: unknown }>) {
      if (typeof e.utxo === 'string' && typeof e.until === 'number' && e.until > now) pending.set(e.utxo, e.until);
    }
  }

  /** Writes `pending` whole: to a temporary file, synced, then renamed over the journal. */
  save(pending: ReadonlyMap<string, number>): void {
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true });
    const path = join(this.dir, JOURNAL_FILE);
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify([...pending].map(([utxo, until]) => ({ utxo, until }))));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  }
}
