/** The soak's --external-devnet: reading the devnet CLI's banner, and nightgate's settings in front of it. */
import t from 'tap';
import { behindExternalDevnet, DevnetBanner, type ExternalDevnet } from '../../../bench/lib/external-devnet.js';

const banner = (name: string, port: number): string[] => [
  `${name} (ledger network id undeployed)`,
  `  graphql    http://127.0.0.1:${port}/api/v4/graphql`,
  `  websocket  ws://127.0.0.1:${port}/api/v4/graphql/ws`,
  `  submit     http://127.0.0.1:${port}/submit`,
  `  faucet     http://127.0.0.1:${port}/faucet`,
  '  test account (devnet only, public): night seed 00',
  '',
];

t.test('the banner is ready once every network has both endpoints, and names them', async (t) => {
  const b = new DevnetBanner();
  const ports = [...banner('mainnet', 4001), ...banner('preprod', 4002)].map((l) => b.line(l));
  t.ok(
    ports.every((p) => p === undefined),
    'not ready before preview',
  );
  const rest = banner('preview', 4003).map((l) => b.line(l));
  t.equal(rest[2], 4003, 'ready on the last endpoint of the last network');
  t.strictSame(b.networks.get('preview'), {
    name: 'preview',
    networkId: 'undeployed',
    graphqlUrl: 'http://127.0.0.1:4003/api/v4/graphql',
    graphqlWsUrl: 'ws://127.0.0.1:4003/api/v4/graphql/ws',
  });
  t.equal(new DevnetBanner().line('{"level":30,"msg":"devnet network up","port":5}'), undefined, 'log lines are not the banner');
});

t.test('nightgate in front of it: its indexers and network id, an upstream prover (never dev), the sponsor seeds', async (t) => {
  const net = (port: number) => ({ name: 'x', networkId: 'undeployed', graphqlUrl: `http://127.0.0.1:${port}/g`, graphqlWsUrl: `ws://127.0.0.1:${port}/g/ws` });
  const devnet = { started: undefined, networks: { mainnet: net(1), preprod: net(2), preview: net(3) } } as unknown as ExternalDevnet;
  const env = behindExternalDevnet(devnet, 'http://127.0.0.1:9', ['aa', 'bb']);
  t.equal(env['NIGHTGATE_PREVIEW_INDEXER'], 'http://127.0.0.1:3/g');
  t.equal(env['NIGHTGATE_PREVIEW_INDEXER_WS'], 'ws://127.0.0.1:3/g/ws');
  t.equal(env['NIGHTGATE_MAINNET_NETWORK_ID'], 'undeployed');
  t.equal(env['NIGHTGATE_PREPROD_PROVER'], 'upstream');
  t.equal(env['NIGHTGATE_PREPROD_PROVER_URL'], 'http://127.0.0.1:9');
  t.equal(env['NIGHTGATE_DUST_WALLET_SEEDS'], 'aa,bb');
});
