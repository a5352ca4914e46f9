/** Command line of the sustained-sponsorship run (bench/sustained.ts), validated eagerly with exact messages. */
import { NETWORKS } from '../../src/core/config/index.js';

export const SUSTAINED_USAGE = `usage: npm run bench:sustained -- [options]
       (from source: npx tsx bench/sustained.ts [options])

N clients, each with its own API key and its own NIGHT address, loop: build an unproven NIGHT
transfer from the address's current UTXO → POST /prove-and-balance → devnet POST /submit → wait
for the block that includes it → spend its change. Bounded: start-up, funding, --duration, then
at most --drain seconds for what is still on its way.

  --clients N            concurrent clients (default 10)
  --duration SECONDS     how long clients start new transfers (default 60)
  --drain SECONDS        after that, how long to wait for transactions on their way (default 30)
  --network NAME         network to sponsor on: mainnet, preprod or preview (default preview)
  --amount STAR          NIGHT each client asks the faucet for, in STAR (default 100000000 = 100 NIGHT)
  --funding-timeout S    how long to wait for the faucet's payouts (default: 60 s plus one 6 s block
                         per two clients, what the unbatched faucet needs)
  --pool-interval S      seconds between GET /wallet-status samples (default 5)

Local run (default): starts nightgate (src/cli serve, embedded devnets) with one API key per
client minted into a config file (NIGHTGATE_CONFIG) and otherwise the server's defaults.
  --block-time-ms N      block interval of the embedded devnets (default the server's, 6000)
  --sponsor-wallets N    server DUST wallets (NIGHTGATE_DUST_WALLET_SEEDS; default the server's own)
  --max-fee SPECK        per-transaction fee cap (NIGHTGATE_DUST_MAX_FEE, default the server's 5 DUST)
                         and a budget that does not bind: to see the chain's capacity once full
                         blocks have raised fee prices past the default cap
  --ledger 8|9           ledger era of the embedded devnet (NIGHTGATE_<NETWORK>_DEVNET_LEDGER; default
                         the server's, 9)
  --all-devnets          keep all three embedded devnets running (default: only --network's; the
                         others point at a closed port and sponsor nothing)

Against a deployment:
  --url URL              nightgate's base URL (requires --key)
  --key K1[,K2…]         API key(s); clients take them round robin
  --faucet-url URL       the devnet faucet (POST {address, amount}); default: the one nightgate's
                         /health lists for --network, if it runs an embedded devnet
  --submit-url URL       where to POST the sponsored bytes (the devnet /submit contract); default
                         from /health likewise
  --indexer-ws URL       the indexer's GraphQL WebSocket (blocks subscription); default from /health
  --seeds FILE           pre-funded NIGHT seeds (64 hex per line), one per client, used instead of
                         the faucet: without a faucet the clients need these
  --network-id ID        ledger network id the transfers are built for (default: from /health,
                         else undeployed)

Re-render:
  --markdown FILE        print the RESULTS.md subsection of an earlier result file (its figures
                         recomputed from its raw records) and exit
  --help                 this text`;

export class SustainedArgsError extends Error {
  override name = 'SustainedArgsError';
}

export interface SustainedArgs {
  clients: number;
  durationS: number;
  drainS: number;
  network: string;
  amountStar: bigint;
  fundingTimeoutS?: number;
  poolIntervalS: number;
  blockTimeMs?: number;
  sponsorWallets?: number;
  /** Server-wide per-transaction fee cap, SPECK (NIGHTGATE_DUST_MAX_FEE; the budget is raised with it). */
  maxFee?: string;
  /** Ledger era of the local devnet (NIGHTGATE_<NETWORK>_DEVNET_LEDGER). */
  ledger?: 8 | 9;
  allDevnets: boolean;
  url?: string;
  keys: string[];
  faucetUrl?: string;
  submitUrl?: string;
  indexerWs?: string;
  seedsFile?: string;
  networkId?: string;
  markdown?: string;
  help: boolean;
}

const VALUE_FLAGS = new Set([
  '--clients',
  '--duration',
  '--drain',
  '--network',
  '--amount',
  '--funding-timeout',
  '--pool-interval',
  '--block-time-ms',
  '--sponsor-wallets',
  '--max-fee',
  '--ledger',
  '--url',
  '--key',
  '--faucet-url',
  '--submit-url',
  '--indexer-ws',
  '--seeds',
  '--network-id',
  '--markdown',
]);
const BOOLEAN_FLAGS = new Set(['--all-devnets', '--help']);

function positive(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new SustainedArgsError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  return n;
}

function httpUrl(flag: string, text: string, protocols: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new SustainedArgsError(`${flag} must be a ${protocols.join(' or ')} URL, got '${text}'`);
  }
  if (!protocols.includes(parsed.protocol.slice(0, -1))) throw new SustainedArgsError(`${flag} must be a ${protocols.join(' or ')} URL, got '${text}'`);
  return text.replace(/\/+$/, '');
}

export function parseSustainedArgs(argv: readonly string[]): SustainedArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (BOOLEAN_FLAGS.has(name)) flags.add(name);
    else if (VALUE_FLAGS.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new SustainedArgsError(`${name} needs a value`);
      values.set(name, value);
    } else throw new SustainedArgsError(`unknown option '${arg}'`);
  }
  const get = (f: string): string | undefined => values.get(f);
  const network = get('--network') ?? 'preview';
  if (!(NETWORKS as readonly string[]).includes(network)) throw new SustainedArgsError(`--network must be one of ${NETWORKS.join(', ')}, got '${network}'`);
  const amount = get('--amount') ?? '100000000';
  if (!/^[1-9][0-9]{0,29}$/.test(amount)) throw new SustainedArgsError(`--amount must be a whole number of STAR, got '${amount}'`);
  const url = get('--url');
  const keys = (get('--key') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (url !== undefined && keys.length === 0) throw new SustainedArgsError('--url needs --key: the sponsorship routes take an API key');
  const remoteOnly = ['--key', '--faucet-url', '--submit-url', '--indexer-ws', '--seeds', '--network-id'].filter((f) => values.has(f));
  if (url === undefined && remoteOnly.length)
    throw new SustainedArgsError(`${remoteOnly.join(', ')} only apply with --url (a local run mints its keys and funds from its own devnet)`);
  const localOnly = ['--block-time-ms', '--sponsor-wallets', '--max-fee', '--ledger']
    .filter((f) => values.has(f))
    .concat(flags.has('--all-devnets') ? ['--all-devnets'] : []);
  if (url !== undefined && localOnly.length) throw new SustainedArgsError(`${localOnly.join(', ')} only apply to a local run (without --url)`);
  const networkId = get('--network-id');
  if (networkId !== undefined && !/^[a-z0-9-]+$/.test(networkId))
    throw new SustainedArgsError(`--network-id must be lower-case letters, digits and '-', got '${networkId}'`);
  const opt = <T>(flag: string, parse: (text: string) => T): T | undefined => {
    const v = get(flag);
    return v === undefined ? undefined : parse(v);
  };
  const fundingTimeoutS = opt('--funding-timeout', (v) => positive('--funding-timeout', v, false));
  const blockTimeMs = opt('--block-time-ms', (v) => positive('--block-time-ms', v, true));
  const sponsorWallets = opt('--sponsor-wallets', (v) => positive('--sponsor-wallets', v, true));
  const faucetUrl = opt('--faucet-url', (v) => httpUrl('--faucet-url', v, ['http', 'https']));
  const submitUrl = opt('--submit-url', (v) => httpUrl('--submit-url', v, ['http', 'https']));
  const indexerWs = opt('--indexer-ws', (v) => httpUrl('--indexer-ws', v, ['ws', 'wss']));
  const maxFee = get('--max-fee');
  if (maxFee !== undefined && !/^[1-9][0-9]{0,39}$/.test(maxFee)) throw new SustainedArgsError(`--max-fee must be a whole number of SPECK, got '${maxFee}'`);
  const ledger = get('--ledger');
  if (ledger !== undefined && ledger !== '8' && ledger !== '9') throw new SustainedArgsError(`--ledger must be 8 or 9, got '${ledger}'`);
  const seedsFile = get('--seeds');
  const markdown = get('--markdown');
  return {
    clients: positive('--clients', get('--clients') ?? '10', true),
    durationS: positive('--duration', get('--duration') ?? '60', false),
    drainS: positive('--drain', get('--drain') ?? '30', false),
    network,
    amountStar: BigInt(amount),
    ...(fundingTimeoutS !== undefined ? { fundingTimeoutS } : {}),
    poolIntervalS: positive('--pool-interval', get('--pool-interval') ?? '5', false),
    ...(blockTimeMs !== undefined ? { blockTimeMs } : {}),
    ...(sponsorWallets !== undefined ? { sponsorWallets } : {}),
    ...(maxFee !== undefined ? { maxFee } : {}),
    ...(ledger !== undefined ? { ledger: Number(ledger) as 8 | 9 } : {}),
    allDevnets: flags.has('--all-devnets'),
    ...(url !== undefined ? { url: httpUrl('--url', url, ['http', 'https']) } : {}),
    keys,
    ...(faucetUrl !== undefined ? { faucetUrl } : {}),
    ...(submitUrl !== undefined ? { submitUrl } : {}),
    ...(indexerWs !== undefined ? { indexerWs } : {}),
    ...(seedsFile !== undefined ? { seedsFile } : {}),
    ...(networkId !== undefined ? { networkId } : {}),
    ...(markdown !== undefined ? { markdown } : {}),
    help: flags.has('--help'),
  };
}
