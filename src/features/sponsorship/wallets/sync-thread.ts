/**
 * Worker-thread entry of the DUST sync: one NetworkDustSync per network, statuses posted to the
 * main thread. A network whose start fails (indexer unreachable) is retried with backoff, so the
 * thread keeps serving the others.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FromSyncThread, SyncThreadData, ToSyncThread } from './sync-protocol.js';
import { NetworkDustSync } from './wallet-sync.js';

const port = parentPort!;
const data = workerData as SyncThreadData;
const syncs: NetworkDustSync[] = [];
const timers = new Set<NodeJS.Timeout>();
let closing = false;

const post = (m: FromSyncThread): void => port.postMessage(m);

function startNetwork(init: SyncThreadData['networks'][number], delay: number): void {
  const sync = new NetworkDustSync(init, (status) => post({ type: 'status', status }));
  sync.start().then(
    () => syncs.push(sync),
    (err: unknown) => {
      sync.close();
      if (closing) return;
      post({ type: 'failed', network: init.network, error: (err as Error).message });
      const timer = setTimeout(() => {
        timers.delete(timer);
        startNetwork(init, Math.min(delay * 2, init.reconnectMaxMs));
      }, delay);
      timers.add(timer);
    },
  );
}

for (const init of data.networks) startNetwork(init, init.reconnectMinMs);

port.on('message', (m: ToSyncThread) => {
  if (m.type !== 'close') return;
  closing = true;
  for (const t of timers) clearTimeout(t);
  for (const s of syncs) s.close();
  port.close();
});
