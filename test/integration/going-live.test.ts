/**
 * A rehearsal of going live (docs/going-live.md), from a mnemonic with nothing on chain to a
 * sponsored user transfer landed through the node RPC, on the embedded devnet's `public` profile:
 * the server wallets are not funded or registered at genesis, the indexer and the node RPC refuse
 * requests without the project id, and transactions go through the node RPC only.
 *
 * mnemonic → `nightgate wallet address` → an ordinary account sends NIGHT to wallet 0 →
 * `nightgate wallet register` → DUST accrues → the keeper grows the pool by splits through the
 * node RPC → a DUST-less user's transfer is sponsored, submitted through the node RPC, and lands.
 *
 * Every wait is on the chain's progress (the DUST sync's status after each block), bounded in time.
 */
import t from 'tap';
import { request } from 'undici';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { runWallet, type WalletArgs } from '../../src/cli/wallet.js';
import { encodeUnshieldedAddress } from '../../src/infra/ledger/index.js';
import { Submitter } from '../../src/infra/node/submitter.js';
import { MIDNIGHT_EXTRINSIC } from '../../src/infra/ledger/index.js';
import { hexToBytes } from '../../packages/devnet/src/keys.js';
import { kitFor, NIGHT_TOKEN, STAR_PER_NIGHT } from '../../packages/devnet/src/ledger-kit.js';
import { MockProver } from '../../packages/devnet/src/mock-prover.js';
import { devnetTestAccount } from '../../packages/devnet/src/test-accounts.js';
import { buildFinalized } from '../../packages/devnet/src/tx-builder.js';
import { Actor } from '../../packages/devnet/src/wallet.js';
import { syncDust, unspentUtxos } from '../fixtures/devnet/wallet-sync.js';
import { startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { TEST_KEY } from '../helpers/app.js';

const MNEMONIC = `${'abandon '.repeat(23)}art`;
/** Wallet 0 of that mnemonic (account 0, NightExternal, index 0), as Midnight's HD wallet derives it. */
const WALLET_0 = '2d8c83c0c382c91f67fbde88dd1d7c27823192505a8753e7a14a92d5b4e2aa02';
const PROJECT_ID = 'rehearsal-preview';
const AUTH = { project_id: PROJECT_ID };
const TARGET_UTXOS = 9;
const WAIT_MS = 90_000;

interface WalletStatus {
  wallets: Array<{
    index: number;
    balance: string;
    utxos: number;
    address?: string;
    night?: string;
    nightUtxos?: number;
    idleNightUtxos?: number;
    registered?: boolean;
    problem?: string | null;
  }>;
  utxos: { free: number; reserved: number; total: number };
  pool: { live: number; maintenance: { state: string; splitsSubmitted: number; reason: string | null } } | null;
  sync: { phase: string };
}

t.test('from a mnemonic to a sponsored transfer landed through the node RPC', async (t) => {
  const app = await startSponsorApp({
    devnet: { profile: 'public' },
    networks: { preview: { projectId: PROJECT_ID } },
    dust: { walletMnemonic: MNEMONIC, walletCount: 1, targetUtxos: TARGET_UTXOS },
  });
  t.teardown(() => app.close());
  const config = app.app.context.config;
  const kit = kitFor(app.era);
  const clients: Client[] = [];
  t.teardown(() => Promise.all(clients.map((c) => c.dispose())));
  const ws = (): Client => {
    const c = createClient({ url: app.devnet.graphqlWsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0, connectionParams: AUTH });
    clients.push(c);
    return c;
  };
  const node = new Submitter({ network: 'preview', nodeRpc: app.devnet.nodeRpcUrl, headers: AUTH, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 10_000 });
  t.teardown(() => node.close());

  /** The DUST sync's next status: it reports after every block. */
  const nextBlock = (): Promise<void> =>
    new Promise((resolve) => {
      const sync = (app.service as unknown as { opts: { sync: { onStatus(l: () => void): () => void } } }).opts.sync;
      const off = sync.onStatus(() => {
        off();
        resolve();
      });
    });
  /** Resolves once `check` holds, checked again after each block, within WAIT_MS. */
  const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + WAIT_MS;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS / 1000} s`);
      await nextBlock();
    }
  };
  const status = async (): Promise<WalletStatus> => {
    const res = await request(`${app.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
    return ((await res.body.json()) as Record<string, WalletStatus>)['preview']!;
  };
  const gql = async (query: string): Promise<any> => {
    const res = await request(app.devnet.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ query }),
    });
    return ((await res.body.json()) as { data: any }).data;
  };
  const wallet = (sub: WalletArgs['sub']): Promise<string[]> => {
    const out: string[] = [];
    // --timeout bounds the whole command; beside a second copy of the suite a registration took over 60 s to be seen.
    const args: WalletArgs = { sub, network: 'preview', url: app.url, key: TEST_KEY, json: false, wallet: undefined, night: 10_000n, timeoutMs: 150_000 };
    return runWallet(args, { config, out: (l) => out.push(l), log: (l) => t.comment(l), pollMs: 200 }).then(() => out);
  };

  // The network behaves as a hosted one: the project id everywhere, no faucet, the node RPC listed.
  const bare = await request(app.devnet.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"query":"{ block { height } }"}',
  });
  await bare.body.dump();
  t.equal(bare.statusCode, 401, 'the indexer refuses a request without the project id');
  const health = (await (await request(`${app.url}/health`, { headers: { 'x-api-key': TEST_KEY } })).body.json()) as {
    components: { devnet: { networks: Record<string, { nodeRpcUrl: string; graphqlUrl: string; profile: string }> } };
  };
  t.match(
    health.components.devnet.networks['preview'],
    { nodeRpcUrl: app.devnet.nodeRpcUrl, graphqlUrl: app.devnet.graphqlUrl, profile: 'public' },
    'keyed /health lists the node RPC beside the indexer',
  );
  t.notMatch(JSON.stringify(health), PROJECT_ID, 'the project id is not in /health');

  // 1. The address to fund, from the mnemonic alone.
  const [line] = await wallet('address');
  const address0 = encodeUnshieldedAddress(WALLET_0, 'undeployed');
  t.match(line, new RegExp(`^0  ${address0}  mn_dust_undeployed1`), "wallet 0: the address Midnight's HD wallet derives");
  await until('the wallet shows with no NIGHT', async () => (await status()).wallets[0]?.problem === 'no NIGHT');
  t.equal((await status()).wallets[0]!.registered, false);
  await t.rejects(wallet('register'), { message: `wallet 0 holds no NIGHT: send NIGHT to ${address0}, then register` }, 'nothing to register yet');

  // 2. An ordinary account (the devnet's test account) sends 2 × 150 000 NIGHT to wallet 0, paying its
  //    own fee, and 50 NIGHT to a user who holds no DUST (step 6).
  const user = freshUser(61, app.era);
  const account = devnetTestAccount('preview');
  const owner = new Actor(hexToBytes(account.nightSeed), kit);
  const [utxo] = await unspentUtxos(ws(), encodeUnshieldedAddress(owner.address, 'undeployed'));
  const params = kit.L.LedgerParameters.deserialize(hexToBytes((await gql('{ block { ledgerParameters } }')).block.ledgerParameters));
  const share = 150_000n * STAR_PER_NIGHT;
  const gift = 50n * STAR_PER_NIGHT;
  const funding = await buildFinalized(
    {
      signer: owner,
      payer: await syncDust(ws(), account.dustSeed, kit),
      inputs: [utxo!],
      outputs: [
        { owner: WALLET_0, type: NIGHT_TOKEN, value: share },
        { owner: WALLET_0, type: NIGHT_TOKEN, value: share },
        { owner: user.address, type: NIGHT_TOKEN, value: gift },
        { owner: owner.address, type: NIGHT_TOKEN, value: utxo!.value - 2n * share - gift },
      ],
    },
    { kit, networkId: 'undeployed', params, time: new Date(Math.floor(Date.now() / 1000) * 1000), prover: new MockProver('undeployed', kit) },
  );
  t.equal((await node.submit(funding.serialize())).via, 'node', 'the NIGHT is sent through the node RPC');
  await until('wallet 0 holds its NIGHT, unregistered', async () => (await status()).wallets[0]?.problem === 'unregistered');
  t.match((await status()).wallets[0], { night: String(2n * share), nightUtxos: 2, registered: false, balance: '0' });

  // 3. Register: the fee comes from the DUST its NIGHT generated since it arrived; a block more if that is too little yet.
  let registered: string[] | undefined;
  for (let attempt = 0; registered === undefined; attempt++) {
    try {
      registered = await wallet('register');
    } catch (err) {
      if (attempt >= 5 || !/wait until it has generated more/.test((err as Error).message)) throw err;
      await nextBlock();
    }
  }
  t.match(registered[0], new RegExp(`^0  ${address0}  registered  [0-9a-f]{64}$`));
  t.same(await wallet('register'), [`0  ${address0}  already registered`], 'registering again does nothing');

  // 4. DUST accrues on the wallet's DUST UTXOs, one per NIGHT UTXO.
  await until('DUST accrues', async () => BigInt((await status()).wallets[0]?.balance ?? '0') > 0n);
  await until('/wallet-status shows it registered', async () => (await status()).wallets[0]?.registered === true);
  t.match((await status()).wallets[0], { registered: true, problem: null });
  t.ok((await status()).wallets[0]!.idleNightUtxos! <= 1, 'its other NIGHT generates once split (the keeper may have split it already)');

  // 5. The keeper grows the pool to its target by splitting the registered NIGHT through the node RPC.
  await until('the pool reaches its target', async () => ((await status()).pool?.live ?? 0) >= TARGET_UTXOS);
  const grown = await status();
  t.ok(grown.pool!.maintenance.splitsSubmitted >= 1, `splits submitted: ${grown.pool!.maintenance.splitsSubmitted}`);
  t.ok(grown.wallets[0]!.nightUtxos! > 2, `the NIGHT is split into more UTXOs: ${grown.wallets[0]!.nightUtxos}`);

  // 6. The user who holds no DUST has its transfer sponsored, submits it through the node RPC, and it lands.
  const [userUtxo] = await unspentUtxos(ws(), user.bech32);
  t.equal(userUtxo?.value, gift, 'the user holds the NIGHT it was sent');
  // New DUST UTXOs start empty and fill as their NIGHT generates: until one covers the fee the
  // answer is 503 with Retry-After, and a client asks again (here: after the next block).
  const body = transferFrom(user, userUtxo!, WALLET_0, 1n * STAR_PER_NIGHT).serialize();
  let res = await app.post('/prove-and-balance', body);
  await until('a DUST UTXO covers the fee', async () => {
    if (res.status !== 503) return true;
    t.ok(res.headers['retry-after'], `503 ${String(res.json['code'])} says when to retry`);
    res = await app.post('/prove-and-balance', body);
    return res.status !== 503;
  });
  t.equal(res.status, 200, `prove-and-balance answered ${res.status} ${String(res.json['message'] ?? '')}`);
  const sponsored = await node.submit(Buffer.from(res.json['tx'] as string, 'hex'));
  t.equal(sponsored.alreadyKnown, false);
  const txHash = res.json['txHash'] as string;
  await until(
    'the sponsored transfer is on chain',
    async () => (await gql(`{ transactions(offset: { hash: "${txHash}" }) { hash } }`))?.transactions?.length === 1,
  );
  t.pass('the sponsored transfer landed');
});
