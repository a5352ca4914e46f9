/**
 * The usage ledger's tests (test/unit/features/sponsorship/usage-ledger*.test.ts): a ledger on an
 * injected clock whose writes are scheduled on a scheduler the test runs by hand, its captured
 * logs, a temporary folder for its day files, and the dates the tests count in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { DAY_MS } from '../../src/features/sponsorship/policy/usage-file.js';
import { UsageLedger, type UsageLedgerOptions } from '../../src/features/sponsorship/policy/usage.js';
import { captureLogs } from './app.js';
import type { ManualClock } from './manual-clock.js';

/** 2025-06-01T00:00:00Z */
export const JUNE_1 = Date.UTC(2025, 5, 1);
export const HOUR = 3_600_000;

/** A temporary folder, removed when `t` ends. */
export function dir(t: Test): string {
  const d = mkdtempSync(join(tmpdir(), 'ng-usage-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A scheduler that runs nothing until told: what was scheduled, and after how long. */
function timers() {
  const pending: Array<{ fn: () => void; ms: number; live: boolean }> = [];
  return {
    pending,
    live: () => pending.filter((p) => p.live),
    schedule: (fn: () => void, ms: number) => {
      const e = { fn, ms, live: true };
      pending.push(e);
      return () => void (e.live = false);
    },
    runAll(): void {
      for (const p of pending.splice(0)) if (p.live) p.fn();
    },
  };
}

export function ledger(clock: ManualClock, extra: Partial<UsageLedgerOptions> = {}) {
  const logs = captureLogs();
  const tm = timers();
  const l = new UsageLedger({ clock, logger: logs.logger, schedule: tm.schedule, ...extra });
  return { l, logs, tm };
}

/** A query window of the 30 days before the clock's now and the day after. */
export const month = (clock: ManualClock) => ({ from: clock.now() - 30 * DAY_MS, to: clock.now() + DAY_MS });
