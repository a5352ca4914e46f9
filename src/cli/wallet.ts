/**
 * `nightgate wallet address|status|register|fund --network NET`: the operator's side of the server
 * wallets (docs/going-live.md). `address` only derives; `status` asks the running server; `register`
 * and `fund` act on the chain where the server does (chain-access.ts).
 */
import { ConfigError, isEmbedded, loadConfig, NETWORKS, type Config, type NetworkName } from '../core/config/index.js';
import { GatewayError } from '../core/errors.js';
import { buildRegistration, LEDGER_PARAMETERS, readNightUtxos, type RegistrationUtxo } from '../features/sponsorship/index.js';
import { configuredWallets } from '../infra/ledger/server-wallets.js';
import { GraphqlHttpClient } from '../infra/indexer/graphql-http.js';
import {
  DEFAULT_ERA,
  dustSeedOf,
  encodeDustAddress,
  encodeUnshieldedAddress,
  eraOfProtocolVersion,
  ledger,
  nightSecretOf,
  release,
  type Era,
  type WalletKeys,
} from '../infra/ledger/index.js';
import { Submitter } from '../infra/node/submitter.js';
import { baseUrl, DEFAULT_BASE_URL } from './base-url.js';
import { chainAccess, CliError, getText, jsonOrUndefined, type ChainAccess } from './chain-access.js';

const WALLET_SUBCOMMANDS = ['address', 'status', 'register', 'fund'] as const;
type WalletSubcommand = (typeof WALLET_SUBCOMMANDS)[number];

const STAR_PER_NIGHT = 1_000_000n;
const SPECK_PER_DUST = 10n ** 15n;
const DEFAULT_FUND_NIGHT = 10_000n;
const REGISTER_TIMEOUT_S = 120;
const POLL_MS = 1_000;
/** A registration's intent lives this long: it lands in the next block or not at all. */
const REGISTRATION_TTL_MS = 10 * 60_000;

export interface WalletArgs {
  sub: WalletSubcommand;
  network: NetworkName;
  url: string;
  key: string | undefined;
  json: boolean;
  wallet: number | undefined;
  night: bigint;
  timeoutMs: number;
}

const VALUED = ['--network', '--url', '--key', '--wallet', '--night', '--timeout'];

export function parseWalletArgs(sub: string | undefined, args: readonly string[]): WalletArgs | { problem: string } {
  if (!(WALLET_SUBCOMMANDS as readonly string[]).includes(sub ?? '')) return { problem: `a subcommand: ${WALLET_SUBCOMMANDS.join(', ')}` };
  const given = new Map<string, string>();
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!;
    if (name === '--json') {
      json = true;
      continue;
    }
    if (!VALUED.includes(name)) return { problem: `unknown argument ${JSON.stringify(name)}` };
    const value = args[++i];
    if (value === undefined || value === '' || value.startsWith('--')) return { problem: `${name} needs a value` };
    if (given.has(name)) return { problem: `${name} given twice` };
    given.set(name, value);
  }
  const network = given.get('--network');
  if (network === undefined) return { problem: '--network is required' };
  if (!(NETWORKS as readonly string[]).includes(network)) return { problem: `--network must be one of ${NETWORKS.join(', ')}` };
  const wallet = given.get('--wallet');
  if (wallet !== undefined && !/^\d{1,2}$/.test(wallet)) return { problem: '--wallet must be a wallet index (0, 1, …)' };
  const night = given.get('--night') ?? String(DEFAULT_FUND_NIGHT);
  if (!/^[1-9]\d{0,5}$/.test(night)) return { problem: '--night must be a whole number of NIGHT from 1 to 999999' };
  const timeout = given.get('--timeout') ?? String(REGISTER_TIMEOUT_S);
  if (!/^\d+$/.test(timeout) || Number(timeout) <= 0) return { problem: '--timeout must be a positive number of seconds' };
  return {
    sub: sub as WalletSubcommand,
    network: network as NetworkName,
    url: given.get('--url') ?? DEFAULT_BASE_URL,
    key: given.get('--key'),
    json,
    wallet: wallet === undefined ? undefined : Number(wallet),
    night: BigInt(night),
    timeoutMs: Number(timeout) * 1000,
  };
}

interface WalletIo {
  out(line: string): void;
  /** Progress, for a person watching (stderr). */
  log(line: string): void;
  config?: Readonly<Config>;
  pollMs?: number;
}

export async function runWallet(args: WalletArgs, io: WalletIo): Promise<void> {
  try {
    await dispatch(io.config ?? loadConfig(), args, io);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

function dispatch(config: Readonly<Config>, args: WalletArgs, io: WalletIo): Promise<void> | void {
  switch (args.sub) {
    case 'address':
      return address(config, args, io);
    case 'status':
      return status(args, io);
    case 'register':
      return register(config, args, io);
    case 'fund':
      return fund(config, args, io);
  }
}

interface Derived {
  index: number;
  keys: WalletKeys;
  hex: string;
  address: string;
  dustAddress: string;
}

/** The configured wallets, or the reason there are none. */
function wallets(config: Config, network: NetworkName, networkId: string, only?: number): Derived[] {
  const keys = configuredWallets(config);
  if (keys === undefined) {
    throw new CliError(
      isEmbedded(config, network)
        ? `no server wallets are configured: ${network}'s embedded devnet generates its own inside the server ` +
            `(see them with nightgate wallet status); to use your own set ` +
            `NIGHTGATE_DUST_WALLET_MNEMONIC (docs/going-live.md)`
        : 'no server wallets are configured: set NIGHTGATE_DUST_WALLET_MNEMONIC or NIGHTGATE_DUST_WALLET_MNEMONIC_FILE (docs/going-live.md)',
    );
  }
  if (only !== undefined && only >= keys.length)
    throw new CliError(`--wallet ${only}: there are ${keys.length} wallets (0 to ${keys.length - 1}; dust.walletCount)`);
  const L = ledger(DEFAULT_ERA);
  return keys.flatMap((k, index) => {
    if (only !== undefined && index !== only) return [];
    const hex = L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(nightSecretOf(k))));
    const dustKey = L.DustSecretKey.fromSeed(Buffer.from(dustSeedOf(k), 'hex'));
    const dustAddress = encodeDustAddress(dustKey.publicKey, networkId);
    release(dustKey);
    return [{ index, keys: k, hex, address: encodeUnshieldedAddress(hex, networkId), dustAddress }];
  });
}

/** The network id addresses are shown for without asking the server: the devnet's is `undeployed`. */
function networkIdOf(config: Config, network: NetworkName): string {
  return config.networks[network].networkId || (isEmbedded(config, network) ? 'undeployed' : network);
}

function address(config: Config, args: WalletArgs, io: WalletIo): void {
  const list = wallets(config, args.network, networkIdOf(config, args.network), args.wallet);
  if (args.json) io.out(JSON.stringify(list.map(({ index, address: a, dustAddress }) => ({ index, address: a, dustAddress }))));
  else for (const w of list) io.out(`${w.index}  ${w.address}  ${w.dustAddress}`);
}

interface StatusWallet {
  index: number;
  balance: string;
  utxos: number;
  address?: string;
  dustAddress?: string;
  night?: string;
  nightUtxos?: number;
  registered?: boolean;
  problem?: string | null;
}

async function status(args: WalletArgs, io: WalletIo): Promise<void> {
  const base = baseUrl(args.url);
  const deadline = Date.now() + args.timeoutMs;
  let res: { status: number; text: string };
  try {
    res = await getText(`${base}/wallet-status`, args.key === undefined ? {} : { 'x-api-key': args.key }, deadline);
  } catch (err) {
    throw new CliError(`cannot read ${base}/wallet-status (${(err as Error).message}): is nightgate running there? (--url)`);
  }
  if (res.status === 401) throw new CliError(`${base} refused the API key (401): pass a valid one with --key`);
  if (res.status === 404) throw new CliError(`${base} does not sponsor (dust.enabled is false)`);
  if (res.status !== 200) throw new CliError(`GET ${base}/wallet-status answered ${res.status}: ${res.text.slice(0, 300)}`);
  const net = jsonOrUndefined(res.text)?.[args.network] as
    | { wallets?: StatusWallet[]; sync?: { phase?: string }; pool?: { maintenance?: { state?: string; reason?: string | null } } | null }
    | undefined;
  if (net === undefined) throw new CliError(`${base} has no server wallets on ${args.network}`);
  const list = (net.wallets ?? []).filter((w) => args.wallet === undefined || w.index === args.wallet);
  if (args.json) {
    io.out(JSON.stringify({ network: args.network, sync: net.sync?.phase ?? null, wallets: list }));
    return;
  }
  io.out(
    `${args.network}: wallets ${net.sync?.phase ?? 'unknown'}` +
      `; pool ${net.pool?.maintenance?.state ?? 'none'}` +
      `${net.pool?.maintenance?.reason ? ` (${net.pool.maintenance.reason}` + `)` : ''}`,
  );
  for (const w of list) {
    const night = w.night === undefined ? 'NIGHT unknown yet' : `NIGHT ${formatUnits(BigInt(w.night), STAR_PER_NIGHT)} in ${w.nightUtxos} UTXO(s)`;
    const dust = `DUST ${formatUnits(BigInt(w.balance), SPECK_PER_DUST)} in ${w.utxos} UTXO(s)`;
    const state =
      w.registered === undefined
        ? ''
        : w.problem === 'no NIGHT'
          ? `NO NIGHT: send NIGHT to ${w.address}`
          : w.registered
            ? 'registered'
            : 'UNREGISTERED: run nightgate wallet register';
    io.out(`${w.index}  ${w.address ?? '(address not read yet)'}  ${night}  ${dust}  ${state}`.trimEnd());
  }
}

/** `value` in units of `per`, six decimals at most. */
export function formatUnits(value: bigint, per: bigint): string {
  const whole = value / per;
  const frac = ((value % per) * 1_000_000n) / per;
  return frac === 0n ? whole.toString() : `${whole}.${frac.toString().padStart(6, '0').replace(/0+$/, '')}`;
}

async function register(config: Config, args: WalletArgs, io: WalletIo): Promise<void> {
  const deadline = Date.now() + args.timeoutMs;
  const access = await chainAccess(config, args.network, baseUrl(args.url), args.key, deadline);
  const list = wallets(config, args.network, access.networkId, args.wallet);
  const { era, parameters } = await tip(access, args.timeoutMs);
  const submitter = new Submitter({
    network: args.network,
    nodeRpc: access.nodeRpcUrl,
    relayUrl: access.relayUrl,
    headers: access.credentials.headers,
    framing: access.framing,
    timeoutMs: args.timeoutMs,
  });
  const L = ledger(era);
  const night = L.nativeToken().raw.toLowerCase();
  try {
    for (const w of list) {
      const utxos = await nightUtxos(access, w.address, night, args.timeoutMs);
      if (utxos.length === 0) throw new CliError(`wallet ${w.index} holds no NIGHT: send NIGHT to ${w.address}, then register`);
      // A key is registered once: its NIGHT generates DUST from then on, each UTXO once it is spent again.
      if (utxos.some((u) => u.registered)) {
        io.out(`${w.index}  ${w.address}  already registered`);
        continue;
      }
      const largest = utxos.reduce((a, b) => (BigInt(b.value) > BigInt(a.value) ? b : a));
      let reg;
      try {
        reg = await buildRegistration({
          era,
          networkId: access.networkId,
          wallet: w.keys,
          utxos: [largest],
          ledgerParameters: parameters,
          now: Date.now(),
          ttlMs: REGISTRATION_TTL_MS,
        });
      } catch (err) {
        if (err instanceof GatewayError) throw new CliError(`wallet ${w.index}: ${err.message}`);
        throw err;
      }
      try {
        await submitter.submit(reg.tx);
      } catch (err) {
        if (err instanceof GatewayError)
          throw new CliError(`wallet ${w.index}: the ${args.network} node refused the registration: ${err.code}: ${err.message}`);
        throw err;
      }
      io.log(
        `wallet ${w.index}: registration ${reg.txHash} submitted (fee ${formatUnits(reg.fee, SPECK_PER_DUST)}` +
          ` DUST from its allowance); waiting for it on chain`,
      );
      await untilRegistered(access, w.address, night, deadline, io.pollMs ?? POLL_MS);
      io.out(`${w.index}  ${w.address}  registered  ${reg.txHash}`);
    }
  } finally {
    await submitter.close();
  }
}

/** The tip's era and ledger parameters, from the network's indexer. */
async function tip(access: ChainAccess, timeoutMs: number): Promise<{ era: Era; parameters: Uint8Array }> {
  const http = new GraphqlHttpClient(access.graphqlUrl, { timeoutMs, maxResponseBytes: 16 * 1024 * 1024, connections: 1, headers: access.credentials.headers });
  try {
    const res = await http.request(LEDGER_PARAMETERS);
    const block = res.data['block'] as { protocolVersion?: number; ledgerParameters?: string } | null;
    if (!block?.ledgerParameters || typeof block.protocolVersion !== 'number')
      throw new CliError(`the ${access.network} indexer has no block with ledger parameters yet`);
    const era = eraOfProtocolVersion(block.protocolVersion);
    return { era, parameters: new Uint8Array(Buffer.from(block.ledgerParameters, 'hex')) };
  } catch (err) {
    if (err instanceof GatewayError) throw new CliError(`the ${access.network} indexer: ${err.message}`);
    throw err;
  } finally {
    await http.close();
  }
}

async function nightUtxos(access: ChainAccess, address: string, night: string, timeoutMs: number): Promise<Array<RegistrationUtxo & { registered: boolean }>> {
  try {
    const utxos = await readNightUtxos(access.graphqlWsUrl, address, night, timeoutMs, access.credentials);
    return utxos.map((u) => ({ value: u.value, intentHash: u.intentHash, outputIndex: u.outputIndex, ctime: u.ctime ?? 0, registered: u.registered === true }));
  } catch (err) {
    if (err instanceof GatewayError) throw new CliError(`the ${access.network} indexer: ${err.message}`);
    throw err;
  }
}

async function untilRegistered(access: ChainAccess, address: string, night: string, deadline: number, pollMs: number): Promise<void> {
  for (;;) {
    const utxos = await nightUtxos(access, address, night, Math.max(1, deadline - Date.now()));
    if (utxos.some((u) => u.registered)) return;
    if (Date.now() + pollMs >= deadline)
      throw new CliError(`the registration of ${address} is not on chain within --timeout; run nightgate wallet status to see whether it landed`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

async function fund(config: Config, args: WalletArgs, io: WalletIo): Promise<void> {
  if (!isEmbedded(config, args.network))
    throw new CliError(`${args.network} is a public network: buy or receive NIGHT and send it to the addresses nightgate wallet address prints`);
  const deadline = Date.now() + args.timeoutMs;
  const access = await chainAccess(config, args.network, baseUrl(args.url), args.key, deadline);
  if (access.faucetUrl === undefined)
    throw new CliError(`the ${args.network} devnet runs the public profile, which has no faucet: send NIGHT from an account of its own (docs/going-live.md)`);
  for (const w of wallets(config, args.network, access.networkId, args.wallet)) {
    const res = await fetch(access.faucetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: w.address, amount: (args.night * STAR_PER_NIGHT).toString() }),
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    });
    const text = await res.text();
    if (res.status !== 202 && res.status !== 200)
      throw new CliError(`the ${args.network} faucet refused wallet ${w.index}: ${res.status} ${text.slice(0, 200)}`);
    io.out(`${w.index}  ${w.address}  ${args.night} NIGHT on its way (next block)`);
  }
}
