/**
 * The cap on address streams (stats.maxAddressStreams): each address-activity lookup (and a
 * search that reads an address) opens one indexer WebSocket; beyond the cap the lookup fails at
 * once with 503 INDEXER_BUSY and opens nothing. The fake indexer holds address streams open
 * until the test releases them, so which lookups are open, refused or done is set by the test.
 */
import t, { type Test } from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { GatewayError } from '../../../../src/core/errors.js';
import type { Reply } from '../../../../src/core/http/route.js';
import { GraphqlHttpClient } from '../../../../src/infra/indexer/graphql-http.js';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';
import { LookupCache } from '../../../../src/features/stats/lookup-cache.js';
import { Lookups, type LookupDeps } from '../../../../src/features/stats/lookups.js';
import { hexToAddress, parseSearch, type UnshieldedAddress } from '../../../../src/features/stats/params.js';
import { FakeIndexer, hashOf } from '../../../fixtures/stats/fake-indexer.js';

const T0 = 1_700_000_000_000;
const NIGHT = '00'.repeat(32);
/** Longer than any test runs: only the timeout test lets a stream time out. */
const NO_TIMEOUT_MS = 60_000;
const [A, B, C, D] = ['alice', 'bob', 'carol', 'dave'].map((l) => hexToAddress(hashOf(l), 'mainnet')) as [
  UnshieldedAddress,
  UnshieldedAddress,
  UnshieldedAddress,
  UnshieldedAddress,
];

interface Rig {
  fake: FakeIndexer;
  deps: LookupDeps;
  lookups: Lookups;
  /** AddressActivity subscriptions the fake received, by address. */
  streamed(): string[];
}

/** A network whose chain gives each of A–D one UTXO, served by the fake; a Lookups with the given cap. */
async function rig(t: Test, maxAddressStreams: number): Promise<Rig> {
  const fake = await FakeIndexer.start();
  fake.addBlock(T0);
  fake.addBlock(
    T0 + 6000,
    [A, B, C, D].map((a, i) => fake.tx({ created: [{ owner: a.bech32, tokenType: NIGHT, value: '100', intentHash: hashOf(`i-${i}`), outputIndex: 0 }] })),
  );
  const http = new GraphqlHttpClient(fake.url, { timeoutMs: NO_TIMEOUT_MS, maxResponseBytes: 1 << 20 });
  const cache = new LookupCache(100, new ManualClock(T0 + 9000));
  const deps: LookupDeps = {
    network: 'mainnet',
    networkId: 'mainnet',
    http,
    wsUrl: fake.wsUrl,
    cache,
    window: new BlockWindow(10),
    timeoutMs: NO_TIMEOUT_MS,
    maxAddressStreams,
  };
  t.teardown(async () => {
    cache.abortAll(new GatewayError('SHUTTING_DOWN'));
    await http.close();
    await fake.close();
  });
  const streamed = (): string[] => fake.subscriptions.filter((s) => s.operationName === 'AddressActivity').map((s) => s.variables['address'] as string);
  return { fake, deps, lookups: new Lookups(deps), streamed };
}

type Outcome = { status: number; cache?: string; code?: string; retryAfter?: string };

/** How a lookup ended, as the HTTP layer would render it (status, X-Cache or code, Retry-After). */
function outcome(r: Reply | Promise<Reply>): Promise<Outcome> {
  return Promise.resolve(r).then(
    (ok) => ({ status: ok.status ?? 200, cache: ok.headers!['X-Cache']! }),
    (err: GatewayError) => ({ status: err.status, code: err.code, ...(err.headers?.['Retry-After'] ? { retryAfter: err.headers['Retry-After'] } : {}) }),
  );
}

const OK: Outcome = { status: 200, cache: 'MISS' };
const BUSY: Outcome = { status: 503, code: 'INDEXER_BUSY', retryAfter: '1' };

t.test('cap N: of N+1 distinct addresses one is refused, the others answer on release; then a lookup is admitted again', async (t) => {
  const { fake, lookups, streamed } = await rig(t, 2);
  const release = fake.holdAddressStreams();
  const a = outcome(lookups.addressActivity(A, 20));
  const b = outcome(lookups.addressActivity(B, 20));
  const c = outcome(lookups.addressActivity(C, 20));
  t.strictSame(await c, BUSY, 'the third is refused at once, while the other two are held');
  await fake.until(() => fake.addressStreamsOpen === 2);
  t.equal(lookups.addressStreams, 2);
  t.equal(lookups.addressStreamsRefused, 1);
  t.strictSame(streamed(), [A.bech32, B.bech32], 'the refused lookup opened no socket');

  release();
  t.strictSame(await Promise.all([a, b]), [OK, OK]);
  t.equal(lookups.addressStreams, 0, 'both streams counted down on success');
  t.strictSame(await outcome(lookups.addressActivity(C, 20)), OK, 'admitted again; the refusal was not cached');
  t.strictSame(await outcome(lookups.addressActivity(A, 20)), { status: 200, cache: 'HIT' });
  t.equal(lookups.addressStreams, 0);
  t.strictSame(streamed(), [A.bech32, B.bech32, C.bech32]);
});

t.test('identical addresses share one stream and are not refused; a cached answer needs none', async (t) => {
  const { fake, lookups, streamed } = await rig(t, 1);
  let release = fake.holdAddressStreams();
  // The same address given as hex and as Bech32m: one cache key, one flight, one socket.
  const a1 = outcome(lookups.addressActivity(hexToAddress(A.hex, 'mainnet'), 20));
  const a2 = outcome(lookups.addressActivity(A, 20));
  await fake.until(() => fake.addressStreamsOpen === 1);
  const a3 = outcome(lookups.addressActivity(A, 20));
  t.equal(lookups.addressStreams, 1, 'three callers, one stream');
  t.strictSame(await outcome(lookups.addressActivity(B, 20)), BUSY, 'the one stream is the whole cap');
  release();
  t.strictSame(await Promise.all([a1, a2, a3]), [OK, OK, OK]);
  t.strictSame(streamed(), [A.bech32]);

  release = fake.holdAddressStreams();
  const b = outcome(lookups.addressActivity(B, 20));
  await fake.until(() => fake.addressStreamsOpen === 1);
  const hit = lookups.addressActivity(A, 20);
  t.notOk(hit instanceof Promise, 'with the cap full, a cached address answers at once');
  t.equal((hit as Reply).headers?.['X-Cache'], 'HIT');
  t.equal(lookups.addressStreamsRefused, 1, 'neither the joiners nor the hit were refused');
  release();
  t.strictSame(await b, OK);
  t.equal(lookups.addressStreams, 0);
});

t.test('a stream that times out gives its place back', async (t) => {
  const { fake, deps, lookups } = await rig(t, 1);
  const release = fake.holdAddressStreams();
  // The fake never answers a held stream, so the deadline is the only way this one can end.
  deps.timeoutMs = 200;
  const a = await outcome(lookups.addressActivity(A, 20));
  t.equal(a.code, 'INDEXER_TIMEOUT');
  t.equal(lookups.addressStreams, 0, 'counted down on the timeout');
  deps.timeoutMs = NO_TIMEOUT_MS;
  release();
  t.strictSame(await outcome(lookups.addressActivity(B, 20)), OK, 'the next address is admitted');
});

t.test('a stream whose only caller leaves gives its place back', async (t) => {
  const { fake, lookups } = await rig(t, 1);
  const release = fake.holdAddressStreams();
  const ac = new AbortController();
  const a = outcome(lookups.addressActivity(A, 20, () => ac.signal));
  await fake.until(() => fake.addressStreamsOpen === 1);
  t.strictSame(await outcome(lookups.addressActivity(B, 20)), BUSY);
  ac.abort(new GatewayError('CLIENT_ABORTED'));
  t.equal((await a).code, 'CLIENT_ABORTED');
  await fake.until(() => fake.addressStreamsOpen === 0);
  t.equal(lookups.addressStreams, 0, 'counted down on the abort: the socket is closed');
  release();
  t.strictSame(await outcome(lookups.addressActivity(B, 20)), OK, 'the next address is admitted');
});

t.test('search counts too: a value read as an address is refused when no stream is free', async (t) => {
  const { fake, lookups, streamed } = await rig(t, 1);
  const release = fake.holdAddressStreams();
  const a = outcome(lookups.addressActivity(A, 20));
  await fake.until(() => fake.addressStreamsOpen === 1);
  const nobody = hashOf('nobody');
  const searchHex = fake.count('SearchHex');
  t.strictSame(
    await outcome(lookups.search(parseSearch(nobody, 'mainnet'), nobody)),
    BUSY,
    '32-byte hex that matched nothing else: its address reading is refused',
  );
  t.equal(fake.count('SearchHex') - searchHex, 1, 'the other readings were tried first');
  t.strictSame(await outcome(lookups.search(parseSearch(B.bech32, 'mainnet'), B.bech32)), BUSY, 'an mn_addr… address');
  t.strictSame(streamed(), [A.bech32]);
  release();
  t.strictSame(await a, OK);
  t.strictSame(await outcome(lookups.search(parseSearch(B.bech32, 'mainnet'), B.bech32)), OK, 'admitted once the stream is free; the refusal was not cached');
  t.strictSame(await outcome(lookups.search(parseSearch(nobody, 'mainnet'), nobody)), { status: 404, code: 'SEARCH_NO_MATCH' });
  t.equal(lookups.addressStreams, 0);
  t.equal(lookups.addressStreamsRefused, 2);
});

t.test('one address at two limits: cached apart, read through one stream; one caller leaving keeps it for the other', async (t) => {
  const { fake, lookups, streamed } = await rig(t, 1);
  const release = fake.holdAddressStreams();
  const leaving = new AbortController();
  const one = Promise.resolve(lookups.addressActivity(A, 1, () => leaving.signal));
  await fake.until(() => fake.addressStreamsOpen === 1);
  const twenty = Promise.resolve(lookups.addressActivity(A, 20));
  await new Promise((resolve) => setImmediate(resolve));
  // Its own read would have met the full cap: refused, and the lookup failed.
  t.same([lookups.addressStreams, lookups.addressStreamsRefused], [1, 0], 'the second limit joined the stream of the first');
  t.strictSame(await outcome(lookups.addressActivity(B, 20)), BUSY, 'and took no place of its own');
  leaving.abort(new GatewayError('CLIENT_ABORTED'));
  await t.rejects(one, { code: 'CLIENT_ABORTED' });
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(lookups.addressStreams, 1, 'the stream stays open for the caller still waiting (an aborted one counts down at once)');
  release();
  const answer = await twenty;
  t.equal(answer.headers?.['X-Cache'], 'MISS');
  t.match(JSON.parse(String(answer.body)), { limit: 20, transactionCount: 1 });
  t.strictSame(streamed(), [A.bech32], 'one socket for both limits');
  t.equal(lookups.addressStreams, 0);
  const again = await Promise.resolve(lookups.addressActivity(A, 1));
  t.match(JSON.parse(String(again.body)), { limit: 1 }, 'each limit its own cached answer');
  t.equal(again.headers?.['X-Cache'], 'MISS', 'limit 1 was never answered, so it reads again');
});
