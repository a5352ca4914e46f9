// `nightgate wallet`: its arguments, `status` as the running server reports it, and `fund` through
// the devnet's faucet (devnet only); `address` and `register` run end to end in
// test/integration/process/cli-help.test.ts and test/integration/going-live.test.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { CliError } from '../../../src/cli/chain-access.js';
import { formatUnits, parseWalletArgs, runWallet, type WalletArgs } from '../../../src/cli/wallet.js';
import { loadConfig } from '../../../src/core/config/index.js';
import { encodeUnshieldedAddress } from '../../../src/infra/ledger/index.js';

const MNEMONIC = `${'abandon '.repeat(23)}art`;
/** Wallet 0 of that mnemonic, as Midnight's HD wallet derives it (test/unit/ledger/wallet-keys.test.ts). */
const WALLET_0 = encodeUnshieldedAddress('2d8c83c0c382c91f67fbde88dd1d7c27823192505a8753e7a14a92d5b4e2aa02', 'undeployed');

t.test('arguments', async (t) => {
  t.match(parseWalletArgs('status', ['--network', 'preview']), {
    sub: 'status',
    network: 'preview',
    url: 'http://127.0.0.1:8080',
    key: undefined,
    json: false,
    night: 10_000n,
    timeoutMs: 120_000,
  });
  t.match(parseWalletArgs('fund', ['--network', 'preprod', '--night', '5', '--wallet', '1', '--json']), { sub: 'fund', night: 5n, wallet: 1, json: true });
  t.same(parseWalletArgs('spend', ['--network', 'preview']), { problem: 'a subcommand: address, status, register, fund' });
  t.same(parseWalletArgs('status', []), { problem: '--network is required' });
  t.same(parseWalletArgs('status', ['--network', 'testnet']), { problem: '--network must be one of mainnet, preprod, preview' });
  t.same(parseWalletArgs('status', ['--network', 'preview', '--night', '0']), { problem: '--night must be a whole number of NIGHT from 1 to 999999' });
  t.same(parseWalletArgs('status', ['--network', 'preview', '--wallet', 'x']), { problem: '--wallet must be a wallet index (0, 1, …)' });
  t.same(parseWalletArgs('status', ['--network', 'preview', '--network', 'preprod']), { problem: '--network given twice' });
  t.same(parseWalletArgs('status', ['--network', 'preview', '--key']), { problem: '--key needs a value' });
  t.same(parseWalletArgs('status', ['--network', 'preview', '--force']), { problem: 'unknown argument "--force"' });
});

t.test('amounts in NIGHT and DUST', async (t) => {
  t.equal(formatUnits(150_000_000_000n, 1_000_000n), '150000');
  t.equal(formatUnits(2_500_000_000_000_000n, 10n ** 15n), '2.5');
  t.equal(formatUnits(1n, 10n ** 15n), '0');
  t.equal(formatUnits(1_234_567n, 1_000_000n), '1.234567');
});

interface Stub {
  url: string;
  walletStatus: unknown;
  faucet: Array<{ address: string; amount: string }>;
}

async function stub(t: Test): Promise<Stub> {
  const s: Stub = { url: '', walletStatus: {}, faucet: [] };
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res) => {
    const path = new URL(req.url ?? '/', 'http://stub').pathname;
    if (req.headers['x-api-key'] !== 'ngk_x' && path !== '/faucet') return send(res, 401, { code: 'UNAUTHORIZED' });
    if (path === '/wallet-status') return send(res, 200, s.walletStatus);
    if (path === '/health')
      return send(res, 200, {
        status: 'ok',
        components: {
          devnet: {
            networks: {
              preview: {
                networkId: 'undeployed',
                graphqlUrl: `${s.url}/api/v4/graphql`,
                graphqlWsUrl: `${s.url.replace('http', 'ws')}/api/v4/graphql/ws`,
                nodeRpcUrl: `${s.url}/rpc`,
                faucetUrl: `${s.url}/faucet`,
                profile: 'default',
              },
            },
          },
        },
      });
    if (path === '/faucet') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        s.faucet.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        send(res, 202, { accepted: true });
      });
      return;
    }
    send(res, 404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return s;
}

async function run(
  s: Stub,
  sub: WalletArgs['sub'],
  extra: Partial<WalletArgs> = {},
  env: NodeJS.ProcessEnv = { NIGHTGATE_DUST_WALLET_MNEMONIC: MNEMONIC },
): Promise<string[]> {
  const out: string[] = [];
  const parsed = parseWalletArgs(sub, ['--network', 'preview', '--url', s.url, '--key', 'ngk_x']);
  if ('problem' in parsed) throw new Error(parsed.problem);
  await runWallet({ ...parsed, ...extra }, { config: loadConfig({ env }), out: (l) => out.push(l), log: () => undefined });
  return out;
}

t.test('status: each wallet, and in words what it lacks', async (t) => {
  const s = await stub(t);
  s.walletStatus = {
    preview: {
      sync: { phase: 'synced' },
      pool: { maintenance: { state: 'failing', reason: 'no registered NIGHT UTXO of at least 3000 NIGHT left to split' } },
      wallets: [
        { index: 0, balance: '2500000000000000', utxos: 3, address: WALLET_0, night: '150000000000', nightUtxos: 2, registered: true, problem: null },
        { index: 1, balance: '0', utxos: 0, address: 'mn_addr_undeployed1b', night: '0', nightUtxos: 0, registered: false, problem: 'no NIGHT' },
        { index: 2, balance: '0', utxos: 0, address: 'mn_addr_undeployed1c', night: '5000000', nightUtxos: 1, registered: false, problem: 'unregistered' },
        { index: 3, balance: '0', utxos: 0 },
      ],
    },
  };
  t.same(await run(s, 'status'), [
    'preview: wallets synced; pool failing (no registered NIGHT UTXO of at least 3000 NIGHT left to split)',
    `0  ${WALLET_0}  NIGHT 150000 in 2 UTXO(s)  DUST 2.5 in 3 UTXO(s)  registered`,
    '1  mn_addr_undeployed1b  NIGHT 0 in 0 UTXO(s)  DUST 0 in 0 UTXO(s)  NO NIGHT: send NIGHT to mn_addr_undeployed1b',
    '2  mn_addr_undeployed1c  NIGHT 5 in 1 UTXO(s)  DUST 0 in 0 UTXO(s)  UNREGISTERED: run nightgate wallet register',
    '3  (address not read yet)  NIGHT unknown yet  DUST 0 in 0 UTXO(s)',
  ]);
  const json = JSON.parse((await run(s, 'status', { json: true }))[0]!);
  t.equal(json.wallets.length, 4);
  t.equal(json.sync, 'synced');
  await t.rejects(run(s, 'status', { key: 'wrong' }), { constructor: CliError, message: /refused the API key \(401\): pass a valid one with --key$/ });
  s.walletStatus = {};
  await t.rejects(run(s, 'status'), { message: /has no server wallets on preview$/ });
  await t.rejects(run(s, 'status', { url: 'http://127.0.0.1:9' }), {
    message: /^cannot read http:\/\/127\.0\.0\.1:9\/wallet-status .*is nightgate running there\? \(--url\)$/,
  });
});

t.test('fund: the devnet faucet sends NIGHT to each configured wallet; refused off the devnet', async (t) => {
  const s = await stub(t);
  const out = await run(s, 'fund', { night: 250n });
  t.equal(out.length, 2, 'dust.walletCount wallets');
  t.match(out[0], new RegExp(`^0  ${WALLET_0}  250 NIGHT on its way \\(next block\\)$`));
  t.same(
    s.faucet.map((f) => f.amount),
    ['250000000', '250000000'],
    'in STAR',
  );
  t.equal(s.faucet[0]!.address, WALLET_0);
  await t.rejects(
    run(s, 'fund', {}, { NIGHTGATE_DUST_WALLET_MNEMONIC: MNEMONIC, NIGHTGATE_PREVIEW_INDEXER: 'public', NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9' }),
    { message: /^preview is a public network: buy or receive NIGHT/ },
  );
  await t.rejects(run(s, 'fund', {}, {}), { message: /^no server wallets are configured: preview's embedded devnet generates its own/ });
});
