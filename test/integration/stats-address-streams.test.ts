/**
 * stats.maxAddressStreams over HTTP: address-activity and search lookups beyond the cap are
 * answered 503 INDEXER_BUSY with Retry-After and no-store, without an indexer WebSocket; the
 * fake indexer holds address streams open until the test releases them. (The accounting itself,
 * timeouts included: test/unit/features/stats/address-streams.test.ts.)
 */
import t, { type Test } from 'tap';
import { request } from 'undici';
import { FakeIndexer, hashOf } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp, type Got } from '../fixtures/stats/stats-app.js';
import { hexToAddress } from '../../src/features/stats/params.js';

const NIGHT = '00'.repeat(32);
const ADDRS = ['alice', 'bob', 'carol', 'dave'].map((l) => hexToAddress(hashOf(l), 'mainnet'));
const [A, B, C, D] = ADDRS as [(typeof ADDRS)[0], (typeof ADDRS)[0], (typeof ADDRS)[0], (typeof ADDRS)[0]];
/** Held streams must not time out while the test holds them. */
const stats = { upstreamTimeoutMs: 60_000 };

async function chain(): Promise<FakeIndexer> {
  const fake = await FakeIndexer.start();
  fake.addBlock(T0);
  fake.addBlock(
    T0 + 6000,
    ADDRS.map((a, i) => fake.tx({ created: [{ owner: a.bech32, tokenType: NIGHT, value: '100', intentHash: hashOf(`i-${i}`), outputIndex: 0 }] })),
  );
  return fake;
}

const busy = (t: Test, r: Got, what: string, holding = '2 address lookups are'): void => {
  t.equal(r.status, 503, what);
  t.strictSame(
    r.json,
    { error: 'Service Unavailable', message: `${holding} already reading from the mainnet indexer; retry shortly`, code: 'INDEXER_BUSY' },
    what,
  );
  t.equal(r.headers['retry-after'], '1', `${what}: Retry-After`);
  t.equal(r.headers['cache-control'], 'no-store', `${what}: not cached`);
};

t.test('cap 2: of 3 concurrent addresses one is refused 503 INDEXER_BUSY, two answer on release; then admitted again', async (t) => {
  const { get, fake, net } = await statsApp(t, { fake: await chain(), blocks: 0, stats: { ...stats, maxAddressStreams: 2 } });
  const release = fake.holdAddressStreams();
  const pending = [A, B, C].map((a, i) => get(`/api/v1/mainnet/address-activity?identifier=${a.bech32}`).then((r) => ({ r, i })));
  // Two of them are held by the fake: the first answer is the refused one, whichever it is.
  const first = await Promise.race(pending);
  busy(t, first.r, 'the lookup beyond the cap');
  await fake.until(() => fake.addressStreamsOpen === 2);
  t.equal(fake.subscriptions.filter((s) => s.operationName === 'AddressActivity').length, 2, 'the refused lookup opened no WebSocket');
  t.match(net.health(), { addressStreams: { open: 2, max: 2, refused: 1 } });

  release();
  const rest = (await Promise.all(pending)).filter((p) => p.i !== first.i);
  t.strictSame(
    rest.map((p) => [p.r.status, p.r.headers['x-cache']]),
    [
      [200, 'MISS'],
      [200, 'MISS'],
    ],
    'the held lookups complete',
  );
  t.match(net.health(), { addressStreams: { open: 0, refused: 1 } });
  const again = await get(`/api/v1/mainnet/address-activity?identifier=${[A, B, C][first.i]!.bech32}`);
  t.strictSame([again.status, again.headers['x-cache']], [200, 'MISS'], 'the refused address, admitted now: its refusal was not cached');
  t.equal((await get(`/api/v1/mainnet/address-activity?identifier=${D.hex}`)).status, 200);
});

t.test('search reading an address is refused the same way', async (t) => {
  const { get, fake } = await statsApp(t, { fake: await chain(), blocks: 0, stats: { ...stats, maxAddressStreams: 2 } });
  const release = fake.holdAddressStreams();
  const held = [A, B].map((a) => get(`/api/v1/mainnet/address-activity?identifier=${a.hex}`));
  await fake.until(() => fake.addressStreamsOpen === 2);
  busy(t, await get(`/api/v1/mainnet/search?q=${C.bech32}`), 'mn_addr… search');
  busy(t, await get(`/api/v1/mainnet/search?q=${hashOf('nobody')}`), '32-byte hex search that matched nothing else');
  t.equal((await get('/api/v1/mainnet/search?q=1')).status, 200, 'a search that reads no address is not affected');
  release();
  t.strictSame(
    (await Promise.all(held)).map((r) => r.status),
    [200, 200],
  );
  t.match((await get(`/api/v1/mainnet/search?q=${C.bech32}`)).json, { type: 'address', result: { address: C.bech32 } });
});

t.test('a client that leaves frees its stream', async (t) => {
  const { s, get, fake, net } = await statsApp(t, { fake: await chain(), blocks: 0, stats: { ...stats, maxAddressStreams: 1 } });
  const release = fake.holdAddressStreams();
  const ac = new AbortController();
  const gone = request(`${s.url}/api/v1/mainnet/address-activity?identifier=${A.bech32}`, { signal: ac.signal });
  await fake.until(() => fake.addressStreamsOpen === 1);
  t.equal((await get(`/api/v1/mainnet/address-activity?identifier=${B.bech32}`)).status, 503);
  ac.abort();
  await t.rejects(gone);
  // The gateway closes the indexer WebSocket of a lookup nobody waits for any more.
  await fake.until(() => fake.addressStreamsOpen === 0);
  t.equal(net.lookups.addressStreams, 0);
  release();
  t.equal((await get(`/api/v1/mainnet/address-activity?identifier=${B.bech32}`)).status, 200, 'admitted again');
});

t.test('with every stream in use, an address answered before is served from the cache, marked STALE', async (t) => {
  const { get, fake, clock } = await statsApp(t, { fake: await chain(), blocks: 0, stats: { ...stats, maxAddressStreams: 1 } });
  const first = await get(`/api/v1/mainnet/address-activity?identifier=${A.bech32}`);
  t.strictSame([first.status, first.headers['x-cache']], [200, 'MISS']);
  // Past the answer's lifetime (max-age=6), so the next lookup would read the indexer again.
  clock.advance(10_000);
  const release = fake.holdAddressStreams();
  const held = get(`/api/v1/mainnet/address-activity?identifier=${B.bech32}`);
  await fake.until(() => fake.addressStreamsOpen === 1);
  const stale = await get(`/api/v1/mainnet/address-activity?identifier=${A.bech32}`);
  t.strictSame([stale.status, stale.headers['x-cache'], stale.headers['age']], [200, 'STALE', '10'], 'the expired answer, with its age');
  t.strictSame(stale.json, first.json, 'the same body');
  busy(t, await get(`/api/v1/mainnet/address-activity?identifier=${C.bech32}`), 'an address never answered: still the 503', '1 address lookup is');
  release();
  t.equal((await held).status, 200);
});
