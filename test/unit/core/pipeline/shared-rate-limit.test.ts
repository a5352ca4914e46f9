import { Worker } from 'node:worker_threads';
import t from 'tap';
import { MemoryRateLimitStore, type RateLimitScope } from '../../../../src/core/guards/rate-limit.js';
import { SharedRateLimitStore, sharedRateLimitBytes } from '../../../../src/core/guards/shared-rate-limit.js';

type Algorithm = 'fixed' | 'sliding';

t.test('same decisions as MemoryRateLimitStore over a scripted sequence of hits', async (t) => {
  for (const algorithm of ['fixed', 'sliding'] as const) {
    const memory = new MemoryRateLimitStore(algorithm, 1024);
    const shared = new SharedRateLimitStore(algorithm, 1024);
    const hits: [RateLimitScope, string, number, number, number][] = [];
    // Bursts at a window's end and start, a denial, a skipped window, the same id in both scopes.
    for (let i = 0; i < 6; i++) hits.push(['key', 'a', 4, 1000, 900 + i * 10]);
    for (let i = 0; i < 6; i++) hits.push(['key', 'a', 4, 1000, 1000 + i * 50]);
    hits.push(['key', 'a', 4, 1000, 1900], ['key', 'a', 4, 1000, 4100], ['ip', 'a', 2, 1000, 4100], ['ip', 'a', 2, 1000, 4101], ['ip', 'a', 2, 1000, 4102]);
    // Then a pseudo-random walk over a few ids, limits and windows, time never going back.
    let seed = 7;
    let now = 5000;
    for (let i = 0; i < 3000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      now += (seed >>> 8) % 23;
      const scope: RateLimitScope = (seed & 1) === 0 ? 'key' : 'ip';
      hits.push([scope, `id-${(seed >>> 4) % 5}`, 3 + ((seed >>> 12) % 5), 1000 + 500 * ((seed >>> 20) % 2), now]);
    }
    let denied = 0;
    let mismatches = 0;
    for (const [scope, id, limit, windowMs, at] of hits) {
      const expected = memory.hit(scope, id, limit, windowMs, at);
      const got = shared.hit(scope, id, limit, windowMs, at);
      if (!expected.allowed) denied++;
      if (JSON.stringify(got) !== JSON.stringify(expected) && mismatches++ < 5) t.same(got, expected, `${algorithm}: ${scope} ${id} at ${at}`);
    }
    t.equal(mismatches, 0, `${algorithm}: all ${hits.length} decisions identical`);
    t.ok(denied > 100, `${algorithm}: the script includes denials (${denied})`);
    t.equal(shared.size, memory.size, `${algorithm}: same number of tracked clients`);
  }
  // The start of the script, spelled out for the sliding window.
  const s = new SharedRateLimitStore('sliding', 16);
  for (let i = 0; i < 4; i++) t.equal(s.hit('key', 'k', 4, 1000, 900).allowed, true);
  const denied = s.hit('key', 'k', 4, 1000, 1000);
  t.same(denied, { allowed: false, limit: 4, remaining: 0, windowMs: 1000, resetAt: 1250 }, 'denied, admitted again once prev has decayed');
  t.equal(s.hit('key', 'k', 4, 1000, 1250).allowed, true);
});

t.test('two stores on one buffer see each other’s hits; attaching checks the table', async (t) => {
  const a = new SharedRateLimitStore('fixed', 32);
  const b = new SharedRateLimitStore('fixed', 32, a.buffer);
  t.equal(b.buffer, a.buffer);
  t.same([a.hit('key', 'x', 3, 1000, 0).remaining, b.hit('key', 'x', 3, 1000, 1).remaining, a.hit('key', 'x', 3, 1000, 2).remaining], [2, 1, 0]);
  t.equal(b.hit('key', 'x', 3, 1000, 3).allowed, false, 'the limit is met across both');
  t.equal(b.hit('ip', 'x', 3, 1000, 3).remaining, 2, 'scopes are counted apart');
  t.equal(a.size, 2);
  t.equal(b.size, 2);
  t.throws(() => new SharedRateLimitStore('fixed', 64, a.buffer), /maxEntries 32/, 'another maxEntries');
  t.throws(() => new SharedRateLimitStore('sliding', 32, a.buffer), /other algorithm/, 'another algorithm');
  t.throws(() => new SharedRateLimitStore('fixed', 32, new SharedArrayBuffer(sharedRateLimitBytes(32))), /not a rate-limit table/);
  t.throws(() => new SharedRateLimitStore('fixed', 0), RangeError);
});

// A worker thread (plain JS, booted like packages/threads/src/worker-thread.ts does: register tsx,
// then import the TypeScript module). For each table in turn it waits (blocked, not spinning) until
// every worker is there, then hits one shared id and its own id; after another such wait, new ids.
// Workers are slow to boot, so one set of workers serves both algorithms; tap's own loaders are not
// passed on (execArgv: []).
const TSX = import.meta.resolve('tsx/esm/api');
const STORE = new URL('../../../../src/core/guards/shared-rate-limit.ts', import.meta.url).href;
const FRESH = 10_000;
const HAMMER = `
const { parentPort, workerData } = require('node:worker_threads');
import(${JSON.stringify(TSX)})
  .then(({ register }) => { register(); return import(${JSON.stringify(STORE)}); })
  .then(({ SharedRateLimitStore }) => {
    const { tables, maxEntries, gate, workers, index, hits, limit } = workerData;
    const ready = new Int32Array(gate);
    const meet = (word) => {
      if (Atomics.add(ready, word, 1) + 1 === workers) Atomics.notify(ready, word);
      for (let n = Atomics.load(ready, word); n < workers; n = Atomics.load(ready, word)) Atomics.wait(ready, word, n, 10000);
    };
    const counts = tables.map(({ algorithm, buffer }, round) => {
      const store = new SharedRateLimitStore(algorithm, maxEntries, buffer);
      meet(2 * round);
      let shared = 0;
      let own = 0;
      for (let i = 0; i < hits; i++) {
        if (store.hit('key', 'shared', limit, 60000, 1000).allowed) shared++;
        if (store.hit('key', 'own-' + index, hits, 60000, 1000).allowed) own++;
      }
      // New ids, each hit once by every worker, in an order of its own (a stride coprime with
      // FRESH), so that first hits of one id from two threads now and then coincide.
      meet(2 * round + 1);
      let fresh = 0;
      const stride = [1, 3, 7, 11][index];
      for (let i = 0; i < ${FRESH}; i++) if (store.hit('ip', 'fresh-' + ((i * stride) % ${FRESH}), workers, 60000, 1000).allowed) fresh++;
      return { shared, own, fresh };
    });
    parentPort.postMessage(counts);
  });
`;

interface Counts {
  shared: number;
  own: number;
  fresh: number;
}

function runWorker(data: Record<string, unknown>): Promise<Counts[]> {
  const worker = new Worker(HAMMER, { eval: true, execArgv: [], workerData: data });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: Counts[]) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code} before answering`)));
  });
}

t.test('real threads: 4 workers hammering one id admit exactly the limit between them; new ids get one counter each', async (t) => {
  const workers = 4;
  const hits = 20_000;
  const limit = 60_000;
  const maxEntries = 65_536;
  const algorithms: Algorithm[] = ['fixed', 'sliding'];
  const stores = algorithms.map((algorithm) => new SharedRateLimitStore(algorithm, maxEntries));
  const tables = stores.map((store, round) => ({ algorithm: algorithms[round], buffer: store.buffer }));
  const gate = new SharedArrayBuffer(2 * tables.length * Int32Array.BYTES_PER_ELEMENT);
  const perWorker = await Promise.all(Array.from({ length: workers }, (_, index) => runWorker({ tables, maxEntries, gate, workers, index, hits, limit })));
  stores.forEach((store, round) => {
    const algorithm = algorithms[round];
    const results = perWorker.map((counts) => counts[round]!);
    const admitted = results.reduce((sum, r) => sum + r.shared, 0);
    t.equal(admitted, limit, `${algorithm}: ${workers} × ${hits} hits on one id, exactly ${limit} admitted (${results.map((r) => r.shared).join(' + ')})`);
    t.same(
      results.map((r) => r.own),
      Array(workers).fill(hits),
      `${algorithm}: each worker's own id, limit ${hits}, had all its hits admitted: distinct ids do not interfere`,
    );
    t.equal(store.hit('key', 'shared', limit, 60_000, 1000).allowed, false, `${algorithm}: the main thread sees the shared id at its limit`);
    for (let i = 0; i < workers; i++) t.equal(store.hit('key', `own-${i}`, hits, 60_000, 1000).allowed, false, `${algorithm}: own-${i} at its limit`);
    t.same(
      results.map((r) => r.fresh),
      Array(workers).fill(FRESH),
      `${algorithm}: ${FRESH} new ids, limit ${workers}, one hit from each worker: all admitted`,
    );
    let freshOpen = 0;
    for (let i = 0; i < FRESH; i++) if (store.hit('ip', `fresh-${i}`, workers, 60_000, 1000).allowed) freshOpen++;
    t.equal(freshOpen, 0, `${algorithm}: and every one of them is at its limit: their first hits, concurrent, made one counter each`);
    t.equal(store.size, 1 + workers + FRESH, `${algorithm}: one counter per id`);
  });
});

t.test('bounded: a fixed buffer whatever the traffic; a client hit once every 15 hits of its scope is never evicted', async (t) => {
  const s = new SharedRateLimitStore('fixed', 64);
  const bytes = s.buffer.byteLength;
  t.equal(bytes, sharedRateLimitBytes(64));
  t.equal(bytes, 64 + 128 * 64);
  let now = 0;
  for (let i = 0; i < 3; i++) s.hit('ip', 'real', 3, 60_000, now++);
  let shared = 0;
  let realAdmitted = 0;
  for (let i = 0; i < 10_000; i++) {
    // 9 one-shot ids between two hits of the real client: at most 14 hits of the scope apart.
    if (i % 9 === 0 && s.hit('ip', 'real', 3, 60_000, now++).allowed) realAdmitted++;
    if (s.hit('ip', `flood-${i}`, 1_000, 60_000, now++).remaining !== 999) shared++;
  }
  t.equal(shared, 0, 'every one-shot id had a counter of its own');
  t.equal(realAdmitted, 0, 'the real client kept its count all along (never evicted, never admitted again)');
  t.ok(s.size <= 2 * 64, `size ${s.size} within 2 × 64`);
  t.equal(s.size, 64, 'one scope: its 64 slots');
  t.equal(s.buffer.byteLength, bytes, 'no growth');
});

t.test('a full run evicts its least recently seen client (a table of 16 is one run: exact LRU)', async (t) => {
  const s = new SharedRateLimitStore('fixed', 16);
  for (let i = 0; i < 16; i++) for (let n = 0; n < 2; n++) s.hit('ip', `old-${i}`, 2, 60_000, i);
  t.equal(s.size, 16, 'full, every client at its limit');
  s.hit('ip', 'old-0', 2, 60_000, 20);
  t.same([s.hit('ip', 'new-a', 2, 60_000, 21).remaining, s.hit('ip', 'new-b', 2, 60_000, 22).remaining], [1, 1], 'new clients get their own budget');
  t.equal(s.size, 16);
  t.equal(s.hit('ip', 'old-0', 2, 60_000, 23).allowed, false, 'the recently used client was kept');
  t.equal(s.hit('ip', 'old-3', 2, 60_000, 24).allowed, false, 'so was one not yet reached by eviction');
  t.equal(s.hit('ip', 'old-1', 2, 60_000, 25).remaining, 1, 'the least recently seen was evicted and starts again');
});

t.test('a full table never refuses a brand-new client', async (t) => {
  for (const algorithm of ['fixed', 'sliding'] as Algorithm[]) {
    const s = new SharedRateLimitStore(algorithm, 64);
    for (let i = 0; i < 1000; i++) s.hit('key', `full-${i}`, 1, 60_000, 500);
    t.equal(s.size, 64, `${algorithm}: every slot taken, each client at its limit`);
    let refused = 0;
    for (let i = 0; i < 200; i++) {
      const r = s.hit('key', `new-${i}`, 1, 60_000, 500);
      if (!r.allowed || r.remaining !== 0) refused++;
    }
    t.equal(refused, 0, `${algorithm}: 200 new clients, each first hit allowed with its whole budget`);
    t.equal(s.hit('ip', 'other-scope', 1, 60_000, 500).allowed, true, `${algorithm}: the other scope has its own table`);
  }
});

t.test('a hit stamped before the slot’s window (another thread’s clock) counts in that window', async (t) => {
  const s = new SharedRateLimitStore('fixed', 16);
  t.equal(s.hit('key', 'k', 2, 1000, 1000).remaining, 1);
  t.same(
    s.hit('key', 'k', 2, 1000, 999),
    { allowed: true, limit: 2, remaining: 0, windowMs: 1000, resetAt: 2000 },
    'not a rolled-back window with a fresh budget',
  );
  t.equal(s.hit('key', 'k', 2, 1000, 1001).allowed, false);
});
