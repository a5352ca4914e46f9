/**
 * The networks nightgate serves and the settings each has, the same for each with env vars named
 * after it (what they resolve to: network-endpoints.ts).
 */
import { Type } from '@sinclair/typebox';
import { NonNegInt, setting } from './setting.js';

export const NETWORKS = ['mainnet', 'preprod', 'preview'] as const;
export type NetworkName = (typeof NETWORKS)[number];
const PROVER_BACKENDS = ['dev', 'upstream', 'native', 'wasm'] as const;
export type ProverBackendName = (typeof PROVER_BACKENDS)[number];

/** A hosted provider's endpoints for one network: what `public` resolves to. */
interface PublicEndpoints {
  /** Who runs them, for messages. */
  provider: string;
  indexer: string;
  indexerWs: string;
  nodeRpc: string;
  /** The provider refuses requests without the network's `projectId`. */
  needsProjectId: boolean;
}

/**
 * `public`: Midnight retired its own mainnet and preprod indexer and RPC hosts (the indexers answer
 * 410 ENDPOINT_DECOMMISSIONED); Blockfrost serves those networks, with a `project_id` per network.
 * Midnight still serves preview itself.
 */
const blockfrost = (n: NetworkName): PublicEndpoints => ({
  provider: 'Blockfrost',
  indexer: `https://midnight-${n}.blockfrost.io/api/v0`,
  indexerWs: `wss://midnight-${n}.blockfrost.io/api/v0/ws`,
  nodeRpc: `https://rpc.midnight-${n}.blockfrost.io`,
  needsProjectId: true,
});
export const PUBLIC_ENDPOINTS: Record<NetworkName, PublicEndpoints> = {
  mainnet: blockfrost('mainnet'),
  preprod: blockfrost('preprod'),
  preview: {
    provider: 'Midnight',
    indexer: 'https://indexer.preview.midnight.network/api/v4/graphql',
    indexerWs: 'wss://indexer.preview.midnight.network/api/v4/graphql/ws',
    nodeRpc: 'https://rpc.preview.midnight.network',
    needsProjectId: false,
  },
};

/** Hosts Midnight has shut down: its own mainnet and preprod indexers (410) and RPC nodes. */
export const RETIRED_HOSTS: readonly string[] = [
  'indexer.mainnet.midnight.network',
  'indexer.preprod.midnight.network',
  'rpc.mainnet.midnight.network',
  'rpc.preprod.midnight.network',
];

/** The header (and `connection_init` payload key) that carries a hosted provider's project id. */
export const PROJECT_ID_HEADER = 'project_id';

/** One network's settings: the same for each network, their env vars named after it. */
export const networkGroup = (n: NetworkName) => {
  const N = n.toUpperCase();
  const pub = PUBLIC_ENDPOINTS[n];
  return Type.Object({
    indexer: setting(Type.String({ minLength: 1 }), {
      env: `NIGHTGATE_${N}_INDEXER`,
      default: 'embedded',
      doc:
        `Indexer for ${n}: \`embedded\` (built-in devnet), \`public\` (${pub.provider}` +
        `: ${pub.indexer}` +
        `${pub.needsProjectId ? `, needs \`networks.${n}` + `.projectId\`` : ''}` +
        `) or an http(s) GraphQL URL`,
    }),
    indexerWs: setting(Type.String(), {
      env: `NIGHTGATE_${N}_INDEXER_WS`,
      default: '',
      doc: `WebSocket URL of the ${n} indexer; empty = ${pub.indexerWs} for \`public\`, else derived from the indexer URL (\`…/graphql/ws\`)`,
    }),
    networkId: setting(Type.String({ pattern: '^[a-z0-9-]*$' }), {
      env: `NIGHTGATE_${N}_NETWORK_ID`,
      default: '',
      doc:
        `Ledger network id of the ${n} chain behind an indexer (what its transactions and addresses are built for); empty = \`${n}` +
        `\`. An embedded devnet uses its own (\`undeployed\`)`,
    }),
    nodeRpc: setting(Type.String(), {
      env: `NIGHTGATE_${N}_NODE_RPC`,
      default: '',
      doc:
        `Node JSON-RPC URL for ${n} (http(s) or ws(s), e.g. \`http://127.0.0.1:9944\`): where transactions are submitted (\`author_submitExtrinsic\`: the ` +
        `pool's splits, wallet registrations, \`nightgate submit\`), and the epoch and D-parameter when the indexer lacks them; ` +
        `\`public\` = ${pub.nodeRpc}` +
        `; empty = \`public\` when the indexer is, the devnet's own on an embedded network, else none`,
    }),
    projectId: setting(Type.String({ pattern: '^[A-Za-z0-9_-]*$' }), {
      env: `NIGHTGATE_${N}_PROJECT_ID`,
      default: '',
      secret: true,
      doc:
        `Hosted provider's project id for ${n} (Blockfrost \`project_id\`): sent as the \`${PROJECT_ID_HEADER}` +
        `\` header to the indexer (HTTP and WebSocket, and in its \`connection_init\` payload) and the node RPC; required for ` +
        `\`public\` ${NETWORKS.filter((m) => PUBLIC_ENDPOINTS[m].needsProjectId).join(' and ')}` +
        `, and by the devnet's \`public\` profile`,
    }),
    extrinsic: Type.Object({
      pallet: setting(Type.Integer({ minimum: 0, maximum: 255 }), {
        env: `NIGHTGATE_${N}_EXTRINSIC_PALLET`,
        default: 5,
        doc:
          `Index of the Midnight pallet in the ${n} node's runtime: the extrinsic \`Midnight::send_mn_transaction\` ` +
          `that carries a submitted transaction names it (a ` +
          `runtime upgrade may renumber it)`,
      }),
      call: setting(Type.Integer({ minimum: 0, maximum: 255 }), {
        env: `NIGHTGATE_${N}_EXTRINSIC_CALL`,
        default: 0,
        doc: `Index of \`send_mn_transaction\` within that pallet`,
      }),
      version: setting(Type.Union([Type.Literal(4), Type.Literal(5)]), {
        env: `NIGHTGATE_${N}_EXTRINSIC_VERSION`,
        default: 4,
        doc: 'Format version of the bare (unsigned) extrinsic: 4, or 5 for a runtime on the newer format',
      }),
    }),
    prover: setting(Type.Union([Type.Literal(''), ...PROVER_BACKENDS.map((b) => Type.Literal(b))]), {
      env: `NIGHTGATE_${N}_PROVER`,
      default: '',
      doc: `Prover backend for ${n}: dev, upstream, native, wasm; empty = \`dev\` on the embedded devnet, \`upstream\` otherwise`,
    }),
    proverUrl: setting(Type.String(), {
      env: `NIGHTGATE_${N}_PROVER_URL`,
      default: '',
      doc: `Proof server URL for ${n} (upstream backend); empty = \`prover.upstreamUrl\``,
    }),
    devnet: Type.Object({
      // The runtime check is an integer in 8..9; the type says what that means: a ledger era.
      ledger: setting(Type.Unsafe<8 | 9>(Type.Integer({ minimum: 8, maximum: 9 })), {
        env: `NIGHTGATE_${N}_DEVNET_LEDGER`,
        default: 9,
        doc:
          `Ledger era the embedded devnet runs for ${n} (9, as every public network; 8 for the previous era). Ignored when ${n}` +
          ` is served by another indexer: its era is read from the chain`,
      }),
      ledger9AtHeight: setting(NonNegInt, {
        env: `NIGHTGATE_${N}_DEVNET_LEDGER9_AT_HEIGHT`,
        default: 0,
        doc:
          `With \`devnet.ledger\` 8: the block height at which the embedded ${n}` +
          ` devnet switches to ledger 9, from a fresh ledger-9 state that re-funds the same accounts and server wallets (no state ` +
          `migration exists); 0 = never`,
      }),
    }),
    submitUrl: setting(Type.String(), {
      env: `NIGHTGATE_${N}_SUBMIT_URL`,
      default: '',
      doc:
        `Deprecated (start-up warns): an http(s) relay that takes a finalized transaction's bytes by POST (202 or 200 when ` +
        `accepted), used instead of \`networks.${n}` +
        `.nodeRpc\` for submissions; empty = the node RPC`,
    }),
  });
};
