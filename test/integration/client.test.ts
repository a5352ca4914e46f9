/**
 * @nightgate/client against a running nightgate on the embedded devnet (preview; mainnet and
 * preprod point at a closed port): every statistics method, proving and verifying on the dev
 * backend, sponsorship end to end (the sponsored transactions land and are found again through
 * the client), typed errors, and the Midnight.js adapters, their types checked against
 * midnight-js-types' own interfaces.
 */
import t from 'tap';
import WebSocket from 'ws';
import { createClient as createWsClient } from 'graphql-ws';
import type { ProofProvider, WalletProvider } from '@midnight-ntwrk/midnight-js-types';
import { createClient, isNightgateError, nightgateProofProvider, sponsoredWalletProvider, type NightgateClient, type NightgateError } from '@nightgate/client';
import { mountStats } from '../../src/features/stats/index.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship, SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../src/features/sponsorship/index.js';
import { DEFAULT_ERA, ledger, type L } from '../../src/infra/ledger/index.js';
import { startApp, TEST_KEY, type TestApp } from '../helpers/app.js';
import { freshUser, fundViaFaucet, transferFrom, type User } from '../fixtures/dust/user-tx.js';
import { checkBody, midnightFile, proveBody, shieldedTx } from '../fixtures/prover/samples.js';

const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };
// The devnet runs the era the fixtures build for by default; the client is the same for both.
const ERA = DEFAULT_ERA;
const V = ledger(ERA);

/** Polls `check` until it returns a value, bounded: the chain moves on its own clock. */
async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    const v = await check().catch((err: unknown) => void (last = err));
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function fundedUser(s: TestApp, seed: number): Promise<{ user: User; utxo: Awaited<ReturnType<typeof fundViaFaucet>> }> {
  const devnet = s.app.context.devnet.get('preview')!;
  const ws = createWsClient({ url: devnet.graphqlWsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
  const user = freshUser(seed, ERA);
  try {
    return { user, utxo: await fundViaFaucet(devnet.faucetUrl, ws, user, 100_000_000n) };
  } finally {
    await ws.dispose();
  }
}

/** The devnet's answer to a submission: `202` when accepted, else the status and why. */
async function submit(s: TestApp, tx: Uint8Array): Promise<string> {
  const res = await fetch(s.app.context.devnet.get('preview')!.submitUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: tx,
  });
  const text = await res.text();
  return res.status === 202 ? '202' : `${res.status} ${text.slice(0, 300)}`;
}

/** Resolves with the transaction's details once the statistics see it on chain. */
const landed = (client: NightgateClient, hash: string) => until(`transaction ${hash.slice(0, 12)}… on chain`, () => client.transaction('preview', hash));

const rejection = (p: Promise<unknown>): Promise<NightgateError> =>
  p.then(
    () => {
      throw new Error('resolved');
    },
    (e: NightgateError) => e,
  );

t.test('@nightgate/client on the embedded devnet', async (t) => {
  const s = await startApp(
    {
      networks: { mainnet: CLOSED, preprod: CLOSED, preview: { devnet: { ledger: ERA, ledger9AtHeight: 0 } } },
      devnet: { blockTimeMs: 1000 },
      dust: { feeTtlMs: 20_000, targetUtxos: 0, maxFee: '1000000000000000000' },
      prover: { defaultNetwork: 'preview' },
    },
    { devnet: true, modules: [mountStats, mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  const client = createClient({ baseUrl: s.url, apiKey: TEST_KEY });
  // Refusals as they come, for the error checks (a 503 would otherwise be waited out).
  const once = createClient({ baseUrl: s.url, apiKey: TEST_KEY, retries: false });
  const service = s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!;
  // Users funded while the other checks run: each funding waits for a block.
  const users = Promise.all([fundedUser(s, 61), fundedUser(s, 63), fundedUser(s, 64)]);

  t.test('statistics: every method answers its body', async (t) => {
    const summary = await until('a summary', () => client.summary('preview'));
    t.equal(summary.network.id, 'preview');
    const tip = await client.latestBlock('preview');
    t.ok(tip.height >= summary.latestBlock.height, `tip ${tip.height}`);
    const blockTime = await client.blockTime('preview');
    t.ok(blockTime.averageSeconds === null || typeof blockTime.averageSeconds === 'number', 'block time');
    t.match(await client.blocksProduced('preview'), { total: Number });
    t.type(await client.uptime('preview'), 'object');
    for (const [name, call, code] of [
      ['epoch', () => client.epoch('preview'), 'EPOCH_UNAVAILABLE'],
      ['dParameter', () => client.dParameter('preview'), 'D_PARAMETER_UNAVAILABLE'],
    ] as const) {
      const got = await call().then(
        (v) => v as object,
        (e: NightgateError) => e,
      );
      if (got instanceof Error) t.match(got, { status: 404, code }, `${name}: the documented 404`);
      else t.type(got, 'object', `${name}: a body`);
    }
    t.type(await client.nightSupply('preview'), 'object');
    const recent = await client.recentTransactions('preview', { limit: 5 });
    t.ok(recent.transactions.length <= 5);
    // Lookups read the indexer on demand.
    const block = await until('the tip block', () => client.block('preview', tip.height));
    t.equal(block.hash, tip.hash, 'block by height');
    t.equal((await until('the tip block by hash', () => client.block('preview', tip.hash))).height, tip.height, 'block by hash');
    t.match(await until('a search', () => client.search('preview', String(tip.height))), { type: 'block' });
    t.match(await client.openapi(), { openapi: '3.1.0' });
    t.match(await client.health(), { status: /ok|degraded/, components: Object });
    t.strictSame(await client.livez(), { status: 'alive' });
    t.equal(client.pushUrl('preview'), `${s.url.replace('http', 'ws')}/api/v1/preview/ws`);
  });

  t.test('typed errors: 401, 404, 400', async (t) => {
    const bad = createClient({ baseUrl: s.url, apiKey: 'not-a-key' });
    t.match(await rejection(bad.prove(proveBody())), { status: 401, code: 'UNAUTHORIZED', title: 'Unauthorized' });
    t.match(await rejection(once.block('preview', 999_999_999)), { status: 404, code: 'BLOCK_NOT_FOUND' });
    t.match(await rejection(once.transaction('preview', '00'.repeat(32))), { status: 404, code: 'TRANSACTION_NOT_FOUND' });
    t.match(await rejection(once.recentTransactions('preview', { limit: 1000 })), { status: 400, code: 'INVALID_PARAMETER', message: /limit/ });
    t.match(await rejection(once.summary('nowhere' as 'preview')), { status: 404, code: 'UNKNOWN_NETWORK' });
    const err = await rejection(once.epoch('mainnet'));
    t.ok(isNightgateError(err) && err.status >= 400, `a network whose indexer is down: ${err.status} ${err.code}`);
  });

  t.test('proving on the dev backend', async (t) => {
    const proof = await client.prove(proveBody(), { network: 'preview' });
    t.equal(new TextDecoder().decode(proof.bytes.subarray(0, 25)), 'midnight:proof-versioned:');
    t.match(proof, { prover: 'dev', network: 'preview', cache: /HIT|MISS/ });
    t.equal((await client.prove(proveBody())).cache, 'HIT', 'the same body again: from the cache');
    const checked = await client.verify(checkBody());
    t.ok(Array.isArray(V.parseCheckResult(checked.bytes)), 'a check result the ledger reads');
    t.equal((await client.check(checkBody())).cache, 'HIT', '/check and /verify are one operation');
    t.ok(Number.isInteger(await client.k(midnightFile('zk/zswap_output.bzkir'))), 'k of a circuit');
    t.type(await client.proverVersion(), 'string');
    t.ok((await client.proofVersions()).length > 0);
    t.match(await client.proverReady(), { status: 'ok' });
  });

  t.test('ProofProvider: a shielded transaction proven through nightgate', async (t) => {
    const provider: ProofProvider = nightgateProofProvider(client, { ledger: V, network: 'preview' });
    const unproven = shieldedTx(1n, ERA);
    const proven = await provider.proveTx(unproven, { timeout: 30_000 });
    const back = V.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', proven.bind().serialize());
    t.match(back.transactionHash(), /^[0-9a-f]{64}$/);
    const mock = unproven.mockProve().guaranteedOffer!;
    t.same(back.guaranteedOffer!.outputs[0]!.proof.serialize(), mock.outputs[0]!.proof.serialize(), "the dev backend's proof, as the ledger shapes it");
  });

  t.test('sponsorship, directly and through the WalletProvider adapter: the transactions land', async (t) => {
    await service.whenSynced('preview');
    const [alice, carol, dave] = await users;
    t.match(await rejection(once.balanceOnly(new Uint8Array([1, 2, 3]))), { status: 400, code: 'WRONG_TRANSACTION_KIND' }, 'not a transaction: 400');

    // proveAndBalance takes a ledger transaction or its bytes; the same bytes are answered once.
    const tx = transferFrom(alice.user, alice.utxo, freshUser(62, ERA).address, 3_000_000n);
    const answer = await client.proveAndBalance(tx, { network: 'preview' });
    t.match(answer, { network: 'preview', feeUnit: 'SPECK', fee: /^\d+$/, txHash: /^[0-9a-f]{64}$/ });
    const dedupe: string[] = [];
    const again = await client.proveAndBalance(tx.serialize(), { onResponse: (a) => dedupe.push(a.headers.get('x-dedupe') ?? '') });
    t.strictSame(again, answer, 'bytes or the transaction: the same answer');
    t.strictSame(dedupe, ['HIT']);

    // A dApp's wallet without DUST: its keys, nightgate's fee.
    const keys = V.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(7));
    const own: WalletProvider = {
      balanceTx: () => Promise.reject(new Error('the dApp wallet has no DUST')),
      getCoinPublicKey: () => keys.coinPublicKey,
      getEncryptionPublicKey: () => keys.encryptionPublicKey,
    };
    const fees: string[] = [];
    const wallet = sponsoredWalletProvider(client, own, { ledger: V, network: 'preview', onSponsored: (a) => fees.push(a.fee) });
    const asMidnight: WalletProvider = wallet;
    t.equal(asMidnight.getCoinPublicKey(), keys.coinPublicKey, "the keys are the dApp wallet's");
    // Midnight.js' order: the ProofProvider proves, the WalletProvider balances.
    const proofs = nightgateProofProvider(client, { ledger: V });
    const unbound = await proofs.proveTx(transferFrom(carol.user, carol.utxo, dave.user.address, 1_000_000n));
    const finalized = await asMidnight.balanceTx(unbound);
    // Or one call: nightgate proves and pays the fee.
    const alsoFinal = await wallet.balanceUnprovenTx(transferFrom(dave.user, dave.utxo, carol.user.address, 2_000_000n));
    t.equal(fees.length, 2, 'onSponsored saw both');

    const sent: Array<[string, string, Uint8Array]> = [
      ['proveAndBalance', answer.txHash, Buffer.from(answer.tx, 'hex')],
      ['balanceTx', finalized.transactionHash(), finalized.serialize()],
      ['balanceUnprovenTx', alsoFinal.transactionHash(), alsoFinal.serialize()],
    ];
    for (const [name, , bytes] of sent) t.equal(await submit(s, bytes), '202', `${name}: submitted`);
    const found = await Promise.all(sent.map(([, hash]) => landed(client, hash)));
    t.strictSame(
      found.map((f) => f.hash),
      sent.map(([, hash]) => hash),
      'all three found on chain through the client',
    );
    t.match(await client.search('preview', answer.txHash), { type: 'transaction' });
    t.match(await client.walletStatus(), { preview: { sync: { phase: 'synced' } } });
    const activity = await until("alice's activity", () => client.addressActivity('preview', alice.user.address, { limit: 1 }));
    t.ok(activity.transactionCount >= 2 && activity.transactions.length === 1, `alice: ${activity.transactionCount} transactions, the newest given`);
  });

  t.test('contract lookup: the counter the devnet deploys', async (t) => {
    const address = await until(
      'a contract deploy',
      async () => {
        const tip = (await client.latestBlock('preview')).height;
        for (let h = tip; h >= Math.max(0, tip - 30); h--) {
          const action = (await client.block('preview', h)).transactions.flatMap((x) => x.contractActions)[0];
          if (action) return action.address;
        }
        return undefined;
      },
      30_000,
    );
    t.equal((await client.contract('preview', address)).address, address);
  });
});
