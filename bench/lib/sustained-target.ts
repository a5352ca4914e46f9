/** Where bench/sustained.ts sends its load: the target's endpoints and ledger era (from /health), and the local server's environment. */
import { isEra, type Era } from '../../src/infra/ledger/index.js';
import { closedPort, localServeEnv, onlyDevnetOf, sponsorSeeds } from './nightgate.js';
import type { SustainedArgs } from './sustained-args.js';

export interface Endpoints {
  baseUrl: string;
  networkId: string;
  graphqlWsUrl: string;
  submitUrl: string;
  faucetUrl?: string;
  blockTimeMs: number | null;
  /** The ledger era of the network (`/health` components.ledger), which the transfers are built for. */
  era: Era;
}

/** The embedded devnet's endpoints for `network` from GET /health (with a key: `components.devnet.networks`). */
export async function devnetOf(baseUrl: string, apiKey: string, network: string): Promise<Partial<Endpoints>> {
  const r = await fetch(`${baseUrl}/health`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(10_000) });
  const json = (await r.json().catch(() => ({}))) as {
    components?: { devnet?: { networks?: Record<string, Record<string, unknown>> }; ledger?: { networks?: Record<string, { era?: unknown }> } };
  };
  const era = json.components?.ledger?.networks?.[network]?.era;
  const n = json.components?.devnet?.networks?.[network];
  if (!n) return isEra(era) ? { era } : {};
  const str = (k: string): string | undefined => (typeof n[k] === 'string' ? (n[k] as string) : undefined);
  const out: Partial<Endpoints> = isEra(era) ? { era } : {};
  for (const [key, field] of [
    ['networkId', 'networkId'],
    ['graphqlWsUrl', 'graphqlWsUrl'],
    ['submitUrl', 'submitUrl'],
    ['faucetUrl', 'faucetUrl'],
  ] as const) {
    const v = str(field);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The local server's environment: one key per client in a config file, the server's defaults otherwise. */
export async function localEnv(args: SustainedArgs, configFile: string): Promise<Record<string, string>> {
  const env = localServeEnv(configFile);
  if (args.blockTimeMs !== undefined) env['NIGHTGATE_DEVNET_BLOCK_TIME_MS'] = String(args.blockTimeMs);
  if (args.ledger !== undefined) env[`NIGHTGATE_${args.network.toUpperCase()}_DEVNET_LEDGER`] = String(args.ledger);
  // The pool grows to its target before the measured window (the run waits for /readyz), not in it.
  env['NIGHTGATE_DUST_GROW_AT_START'] = 'true';
  if (args.sponsorWallets !== undefined)
    Object.assign(env, { NIGHTGATE_DUST_WALLET_DERIVATION: 'legacy', NIGHTGATE_DUST_WALLET_SEEDS: sponsorSeeds(args.sponsorWallets).join(',') });
  if (args.maxFee !== undefined) {
    env['NIGHTGATE_DUST_MAX_FEE'] = args.maxFee;
    env['NIGHTGATE_DUST_BUDGET'] = (10n ** 39n).toString();
  }
  if (!args.allDevnets) {
    // The other networks point at a port where nothing listens: no devnet of theirs competes for the 2 cores.
    Object.assign(env, onlyDevnetOf(args.network, await closedPort()));
  }
  return env;
}
