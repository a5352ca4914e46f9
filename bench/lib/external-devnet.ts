/**
 * The devnet as a process of its own (`packages/devnet/src/cli`), for runs that measure nightgate
 * as it is deployed: in front of an indexer elsewhere, not hosting a chain. The devnet's chain state
 * grows with every block (it is a chain); in its own process that growth is not counted as
 * nightgate's.
 */
import { NETWORKS, type NetworkName } from '../../src/core/config/index.js';
import type { ProcessGroup, Started } from './processes.js';
import type { DevnetNetwork } from './scenario.js';

/**
 * Reads the CLI's banner, one block per network:
 *   `preview (ledger network id undeployed)` then `  graphql    URL` and `  websocket  URL`.
 */
export class DevnetBanner {
  readonly networks = new Map<string, DevnetNetwork>();
  #current: { name: string; networkId: string; graphqlUrl?: string; graphqlWsUrl?: string } | undefined;

  /** Takes one line; answers the port of the last network's GraphQL endpoint once `names` are all read. */
  line(text: string, names: readonly string[] = NETWORKS): number | undefined {
    const head = /^(\S+) \(ledger network id (\S+)\)$/.exec(text);
    if (head) {
      this.#current = { name: head[1]!, networkId: head[2]! };
      return undefined;
    }
    const entry = /^\s+(graphql|websocket)\s+(\S+)$/.exec(text);
    const c = this.#current;
    if (!entry || !c) return undefined;
    if (entry[1] === 'graphql') c.graphqlUrl = entry[2]!;
    else c.graphqlWsUrl = entry[2]!;
    if (c.graphqlUrl && c.graphqlWsUrl) {
      this.networks.set(c.name, { name: c.name, networkId: c.networkId, graphqlUrl: c.graphqlUrl, graphqlWsUrl: c.graphqlWsUrl });
    }
    if (!names.every((n) => this.networks.has(n))) return undefined;
    return Number(new URL(c.graphqlUrl ?? c.graphqlWsUrl!).port);
  }
}

export interface ExternalDevnet {
  started: Started;
  networks: Record<NetworkName, DevnetNetwork>;
}

export async function startExternalDevnet(
  group: ProcessGroup,
  opts: { sponsorSeeds: readonly string[]; blockTimeMs?: number; retainBlocks?: number },
): Promise<ExternalDevnet> {
  const banner = new DevnetBanner();
  const started = await group.start({
    name: 'devnet',
    module: 'packages/devnet/src/cli',
    args: [
      ...opts.sponsorSeeds.flatMap((s) => ['--sponsor-wallet', s]),
      ...(opts.blockTimeMs ? ['--block-time-ms', String(Math.round(opts.blockTimeMs))] : []),
      ...(opts.retainBlocks ? ['--retain-blocks', String(Math.round(opts.retainBlocks))] : []),
    ],
    env: {},
    readyPort: (line) => banner.line(line),
    timeoutMs: 180_000,
  });
  const networks = Object.fromEntries(NETWORKS.map((n) => [n, banner.networks.get(n)!])) as Record<NetworkName, DevnetNetwork>;
  return { started, networks };
}

/** nightgate's settings for networks served by `devnet`, with proofs from an upstream proof server. */
export function behindExternalDevnet(devnet: ExternalDevnet, proverUrl: string, sponsorSeeds: readonly string[]): Record<string, string> {
  return {
    ...Object.fromEntries(
      NETWORKS.flatMap((n) => {
        const N = n.toUpperCase();
        const net = devnet.networks[n];
        return [
          [`NIGHTGATE_${N}_INDEXER`, net.graphqlUrl],
          [`NIGHTGATE_${N}_INDEXER_WS`, net.graphqlWsUrl],
          [`NIGHTGATE_${N}_NETWORK_ID`, net.networkId],
          // The dev backend is only allowed on an embedded devnet (docs/proving.md, "Backends").
          [`NIGHTGATE_${N}_PROVER`, 'upstream'],
          [`NIGHTGATE_${N}_PROVER_URL`, proverUrl],
        ];
      }),
    ),
    NIGHTGATE_DUST_WALLET_DERIVATION: 'legacy',
    NIGHTGATE_DUST_WALLET_SEEDS: sponsorSeeds.join(','),
  };
}
