/** Where each network's data comes from: the embedded devnet's endpoints, or an indexer and its WebSocket. */
import t from 'tap';
import type { AppContext, DevnetEndpoints } from '../../../../src/infra/app-context.js';
import { loadConfig, type NetworkName } from '../../../../src/core/config/index.js';
import { sourceOf } from '../../../../src/infra/indexer/source.js';

const devnetInfo: DevnetEndpoints = {
  name: 'preview',
  networkId: 'undeployed',
  graphqlUrl: 'http://127.0.0.1:1/api/v4/graphql',
  graphqlWsUrl: 'ws://127.0.0.1:1/api/v4/graphql/ws',
  submitUrl: '',
  faucetUrl: '',
  nodeRpcUrl: 'http://127.0.0.1:1/rpc',
  profile: 'default',
};
const ctxWith = (devnet: Array<[NetworkName, DevnetEndpoints]>) =>
  ({
    config: loadConfig({
      env: {},
      overrides: {
        networks: {
          mainnet: { indexer: 'public', projectId: 'mainnetPID', prover: 'upstream', proverUrl: 'http://p' },
          preprod: { indexer: 'https://idx.example/api/v4/graphql', indexerWs: 'wss://ws.example/x', prover: 'upstream', proverUrl: 'http://p' },
        },
      },
    }),
    devnet: new Map(devnet),
  }) as unknown as AppContext;

t.test('sources', async (t) => {
  const ctx = ctxWith([['preview', devnetInfo]]);
  t.strictSame(sourceOf(ctx, 'mainnet'), {
    httpUrl: 'https://midnight-mainnet.blockfrost.io/api/v0',
    wsUrl: 'wss://midnight-mainnet.blockfrost.io/api/v0/ws',
    label: 'indexer:midnight-mainnet.blockfrost.io',
    networkId: 'mainnet',
    embedded: false,
    credentials: { headers: { project_id: 'mainnetPID' }, initPayload: { project_id: 'mainnetPID' } },
    nodeRpcUrl: 'https://rpc.midnight-mainnet.blockfrost.io',
  });
  t.strictSame(sourceOf(ctx, 'preprod'), {
    httpUrl: 'https://idx.example/api/v4/graphql',
    wsUrl: 'wss://ws.example/x',
    label: 'indexer:idx.example',
    networkId: 'preprod',
    embedded: false,
    credentials: { headers: {}, initPayload: {} },
    nodeRpcUrl: undefined,
  });
  t.strictSame(sourceOf(ctx, 'preview'), {
    httpUrl: devnetInfo.graphqlUrl,
    wsUrl: devnetInfo.graphqlWsUrl,
    label: 'embedded-devnet',
    networkId: 'undeployed',
    embedded: true,
    credentials: { headers: {}, initPayload: {} },
    nodeRpcUrl: 'http://127.0.0.1:1/rpc',
  });
  t.equal(sourceOf(ctxWith([]), 'preview'), undefined, 'embedded without a running devnet');
});

t.test('an indexer network takes its ledger network id from NIGHTGATE_<NET>_NETWORK_ID, else its name', async (t) => {
  const config = loadConfig({
    env: {
      NIGHTGATE_PREPROD_INDEXER: 'http://127.0.0.1:9/api/v4/graphql',
      NIGHTGATE_PREPROD_NETWORK_ID: 'undeployed',
      NIGHTGATE_PREPROD_PROVER: 'upstream',
      NIGHTGATE_PREPROD_PROVER_URL: 'http://127.0.0.1:9',
    },
  });
  const ctx = { config, devnet: new Map() } as unknown as AppContext;
  t.equal(sourceOf(ctx, 'preprod')?.networkId, 'undeployed', 'a private chain built for another id (e.g. a devnet run apart)');
  t.throws(() => loadConfig({ env: { NIGHTGATE_PREPROD_NETWORK_ID: 'Not An Id' } }), /NETWORK_ID|networkId/, 'only lower-case letters, digits and dashes');
});

t.test("the derived WebSocket URL keeps the indexer URL's query after the path, not inside it", async (t) => {
  const config = loadConfig({
    env: {},
    overrides: { networks: { preprod: { indexer: 'https://u:p@idx.example/api/v4/graphql/?apikey=X', prover: 'upstream', proverUrl: 'http://p' } } },
  });
  const ctx = { config, devnet: new Map() } as unknown as AppContext;
  t.equal(sourceOf(ctx, 'preprod')?.wsUrl, 'wss://u:p@idx.example/api/v4/graphql/ws?apikey=X');
  const plain = loadConfig({
    env: {},
    overrides: { networks: { preprod: { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream', proverUrl: 'http://p' } } },
  });
  t.equal(sourceOf({ config: plain, devnet: new Map() } as unknown as AppContext, 'preprod')?.wsUrl, 'ws://127.0.0.1:9/api/v4/graphql/ws');
});
