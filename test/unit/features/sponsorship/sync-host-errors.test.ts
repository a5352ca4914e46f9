/**
 * The DUST sync's errors reach the log once each, at warn, when they appear (not at every status
 * that still carries them), and /wallet-status shows the current one only. Fed the sync thread's
 * messages directly; no thread is started.
 */
import t from 'tap';
import { pino } from 'pino';
import { DustSyncHost } from '../../../../src/features/sponsorship/wallets/sync-host.js';
import type { SyncStatus } from '../../../../src/features/sponsorship/wallets/sync-protocol.js';

const status = (over: Partial<SyncStatus>): SyncStatus => ({
  network: 'preview',
  phase: 'synced',
  era: 9,
  eraSwitches: 0,
  eventId: 10,
  maxId: 10,
  balance: '0',
  wallets: [],
  fees: undefined,
  lastError: undefined,
  updatedAt: 0,
  ...over,
});

t.test('each sync error is logged once at warn; the status carries the current one', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const host = new DustSyncHost({ networks: [] }, pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) }));
  const warned = (): unknown[] => lines.filter((l) => l['level'] === 40).map((l) => l['err']);
  host.receive({ type: 'status', status: status({}) });
  host.receive({ type: 'status', status: status({ phase: 'reconnecting', lastError: 'socket hang up' }) });
  host.receive({ type: 'status', status: status({ phase: 'reconnecting', lastError: 'socket hang up', eventId: 11 }) });
  host.receive({ type: 'status', status: status({ phase: 'reconnecting', lastError: 'socket hang up', eventId: 12 }) });
  t.same(warned(), ['socket hang up'], 'logged once, though three statuses carried it');
  t.equal(host.status('preview')?.lastError, 'socket hang up');
  host.receive({ type: 'status', status: status({ eventId: 13 }) });
  t.equal(host.status('preview')?.lastError, undefined, 'cleared once the sync works again');
  host.receive({ type: 'status', status: status({ phase: 'reconnecting', lastError: 'socket hang up', eventId: 14 }) });
  host.receive({ type: 'status', status: status({ phase: 'reconnecting', lastError: 'the indexer completed the DUST event subscription', eventId: 14 }) });
  t.same(
    warned(),
    ['socket hang up', 'socket hang up', 'the indexer completed the DUST event subscription'],
    'an error that comes back, and a new one, are logged again',
  );
});
