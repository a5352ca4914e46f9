/**
 * The networks nightgate serves and the settings each has, the same for each with env vars named
 * after it (what they resolve to: network-endpoints.ts).
 */
import { Type } from '@sinclair/typebox';
import { NonNegInt, setting } from './setting.js';

export const NETWORKS = ['mainnet', 'preprod', 'preview'] as const;
export type NetworkName = (typeof NETWORKS)[number];
export const PROVER_BACKENDS = ['dev', 'upstream', 'native', 'wasm'] as const;
export type ProverBackendName = (typeof PROVER_BACKENDS)[number];

/** The public Midnight indexers (LEDGER.md, "Indexer"), used when a network's indexer is `public`. */
export const PUBLIC_INDEXERS: Record<NetworkName, string> = {
  mainnet: 'https://indexer.mainnet.midnight.network/api/v4/graphql',
  preprod: 'https://indexer.preprod.midnight.network/api/v4/graphql',
  preview: 'https://indexer.preview.midnight.network/api/v4/graphql',
};

/** One network's settings: the same for each network, their env vars named after it. */
export const networkGroup = (n: NetworkName) => {
  const N = n.toUpperCase();
  return Type.Object({
    indexer: setting(Type.String({ minLength: 1 }), { env: `NIGHTGATE_${N}_INDEXER`, default: 'embedded', doc: `Indexer for ${n}: \`embedded\` (built-in devnet), \`public\` (${PUBLIC_INDEXERS[n]}) or an http(s) GraphQL URL` }),
    indexerWs: setting(Type.String(), { env: `NIGHTGATE_${N}_INDEXER_WS`, default: '', doc: `WebSocket URL of the ${n} indexer; empty = derived from the indexer URL (\`…/graphql/ws\`)` }),
    networkId: setting(Type.String({ pattern: '^[a-z0-9-]*$' }), { env: `NIGHTGATE_${N}_NETWORK_ID`, default: '', doc: `Ledger network id of the ${n} chain behind an indexer (what its transactions and addresses are built for); empty = \`${n}\`. An embedded devnet uses its own (\`undeployed\`)` }),
    nodeRpc: setting(Type.String(), { env: `NIGHTGATE_${N}_NODE_RPC`, default: '', doc: `Node JSON-RPC URL for ${n} (http(s), e.g. \`http://127.0.0.1:9944\`), read only for what the indexer lacks: the epoch (\`sidechain_getStatus\`) when it has no \`currentEpochInfo\`, the D-parameter (\`systemParameters_getDParameter\`) when no block carries system parameters; empty = not used` }),
    prover: setting(Type.Union([Type.Literal(''), ...PROVER_BACKENDS.map((b) => Type.Literal(b))]), { env: `NIGHTGATE_${N}_PROVER`, default: '', doc: `Prover backend for ${n}: dev, upstream, native, wasm; empty = \`dev\` on the embedded devnet, \`upstream\` otherwise` }),
    proverUrl: setting(Type.String(), { env: `NIGHTGATE_${N}_PROVER_URL`, default: '', doc: `Proof server URL for ${n} (upstream backend); empty = \`prover.upstreamUrl\`` }),
    devnet: Type.Object({
      // The runtime check is an integer in 8..9; the type says what that means: a ledger era.
      ledger: setting(Type.Unsafe<8 | 9>(Type.Integer({ minimum: 8, maximum: 9 })), { env: `NIGHTGATE_${N}_DEVNET_LEDGER`, default: 9, doc: `Ledger era the embedded devnet runs for ${n} (9, as every public network; 8 for the previous era). Ignored when ${n} is served by another indexer: its era is read from the chain` }),
      ledger9AtHeight: setting(NonNegInt, { env: `NIGHTGATE_${N}_DEVNET_LEDGER9_AT_HEIGHT`, default: 0, doc: `With \`devnet.ledger\` 8: the block height at which the embedded ${n} devnet switches to ledger 9, from a fresh ledger-9 state that re-funds the same accounts and server wallets (no state migration exists); 0 = never` }),
    }),
    submitUrl: setting(Type.String(), { env: `NIGHTGATE_${N}_SUBMIT_URL`, default: '', doc: `Where the DUST pool keeper submits its splits on ${n}: an http(s) endpoint taking a finalized transaction's bytes by POST (the embedded devnet's \`/submit\` contract: 202 or 200 when accepted), e.g. the operator's relay to a node; empty: the devnet's own on an embedded network, else the pool does not grow by itself` }),
  });
};
