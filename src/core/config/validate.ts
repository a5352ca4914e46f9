/**
 * Checks of a configuration beyond each setting's own schema: the shape of the JSON file, and the
 * rules that involve more than one setting.
 */
import { redactUrl } from '../log/url-redaction.js';
import { CidrList } from './cidr.js';
import { reservedKeyId } from './key-ids.js';
import { keyPolicyProblem } from './key-policy.js';
import { NETWORKS, PUBLIC_ENDPOINTS, RETIRED_HOSTS } from './networks.js';
import { nodeRpcUrlOf, proverBackendOf, proverUrlOf } from './network-endpoints.js';
import { SETTINGS, type Config } from './schema.js';

/** The shortest block time with all three networks on the embedded devnet (docs/devnet.md). */
const MIN_BLOCK_TIME_ALL_DEVNETS_MS = 3_000;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function knownPaths(): Set<string> {
  const s = new Set<string>();
  for (const setting of SETTINGS) {
    const parts = setting.path.split('.');
    for (let i = 1; i <= parts.length; i++) s.add(parts.slice(0, i).join('.'));
  }
  return s;
}

/**
 * Reject unknown keys in the JSON file: a typo must not silently fall back to a default. The file
 * and every group in it (`auth`, `networks.mainnet`, …) must be objects: `null`, a list or a
 * scalar in their place would otherwise read as "nothing set" — no keys, every default.
 */
function checkUnknown(obj: unknown, prefix: string, known: Set<string>, leafPaths: Set<string>): void {
  if (!isPlainObject(obj)) {
    const what = prefix === '' ? 'the config file' : `setting group "${prefix}" in the config file`;
    throw new ConfigError(`${what} must be a JSON object ({…}), got ${jsonKind(obj)}`);
  }
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (!known.has(path)) throw new ConfigError(`unknown setting "${path}" in the config file`);
    if (!leafPaths.has(path)) checkUnknown(v, path, known, leafPaths);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `${typeof v} ${JSON.stringify(v).slice(0, 40)}`;
}

/** The parsed JSON file: an object holding known groups and settings only. */
export function checkFileShape(file: unknown): void {
  checkUnknown(file, '', knownPaths(), new Set(SETTINGS.map((s) => s.path)));
}

/** Rules that involve more than one setting. */
export function crossCheck(config: Config): void {
  for (const n of NETWORKS) {
    const net = config.networks[n];
    if (net.indexer !== 'embedded' && net.indexer !== 'public' && !/^https?:\/\//.test(net.indexer)) {
      throw new ConfigError(
        `invalid setting networks.${n}.indexer (NIGHTGATE_${n.toUpperCase()}_INDEXER): "${net.indexer}" — expected embedded, public or an http(s) URL`,
      );
    }
    // The dev backend fabricates mock-shaped proofs: only ever for a network served by the
    // embedded devnet, never in front of a public network (docs/proving.md, "Backends").
    if (net.prover === 'dev' && net.indexer !== 'embedded') {
      throw new ConfigError(
        `invalid setting networks.${n}.prover (NIGHTGATE_${n.toUpperCase()}` +
          `_PROVER): the dev backend is only allowed on a network served by the embedded devnet`,
      );
    }
    const N = n.toUpperCase();
    if (net.nodeRpc !== '' && net.nodeRpc !== 'public' && !isRpcUrl(net.nodeRpc)) {
      throw new ConfigError(
        `invalid setting networks.${n}.nodeRpc (NIGHTGATE_${N}` +
          `_NODE_RPC): "${redactUrl(net.nodeRpc)}` +
          `" — expected public or an http(s) or ws(s) URL (a node answers JSON-RPC on its RPC port, e.g. http://127.0.0.1:9944)`,
      );
    }
    if (net.submitUrl !== '' && !/^https?:\/\//.test(net.submitUrl)) {
      throw new ConfigError(`invalid setting networks.${n}.submitUrl (NIGHTGATE_${N}_SUBMIT_URL): "${redactUrl(net.submitUrl)}" — expected an http(s) URL`);
    }
    for (const [setting, url] of [
      ['indexer', net.indexer],
      ['indexerWs', net.indexerWs],
      ['nodeRpc', net.nodeRpc],
    ] as const) {
      const retired = retiredHost(url);
      if (retired)
        throw new ConfigError(
          `invalid setting networks.${n}.${setting} (NIGHTGATE_${N}` +
            `_${setting === 'indexerWs' ? 'INDEXER_WS' : setting === 'nodeRpc' ? 'NODE_RPC' : 'INDEXER'}` +
            `): ${retired}` +
            ` is decommissioned; use \`public\` (${PUBLIC_ENDPOINTS[n].provider}` +
            `) or your own`,
        );
    }
    const usesPublic = net.indexer === 'public' || nodeRpcUrlOf(config, n) === PUBLIC_ENDPOINTS[n].nodeRpc;
    if (usesPublic && PUBLIC_ENDPOINTS[n].needsProjectId && net.projectId === '') {
      throw new ConfigError(
        `missing setting networks.${n}.projectId (NIGHTGATE_${N}_PROJECT_ID): ${PUBLIC_ENDPOINTS[n].provider} serves ${n} only with a project id`,
      );
    }
    if (net.indexer === 'embedded' && config.devnet.profile === 'public' && net.projectId === '') {
      throw new ConfigError(
        `missing setting networks.${n}.projectId (NIGHTGATE_${N}` +
          `_PROJECT_ID): with devnet.profile public the embedded ${n}` +
          ` refuses requests without one; any token of letters, digits, _ and - will do`,
      );
    }
    const backend = proverBackendOf(config, n);
    if (backend === 'upstream' && !proverUrlOf(config, n)) {
      throw new ConfigError(
        `invalid setting networks.${n}.proverUrl (NIGHTGATE_${n.toUpperCase()}` +
          `_PROVER_URL): the upstream backend needs a proof server URL (or set NIGHTGATE_PROVER_URL)`,
      );
    }
    if (backend === 'native' && !config.prover.nativeBinary) {
      throw new ConfigError(
        `invalid setting prover.nativeBinary (NIGHTGATE_PROVER_BINARY): the native backend of ${n} needs the path of midnight-proof-server`,
      );
    }
    if (backend === 'wasm' && !config.prover.keyDir) {
      throw new ConfigError(`invalid setting prover.keyDir (NIGHTGATE_PROVER_KEY_DIR): the wasm backend of ${n} needs a key material directory`);
    }
  }
  // On 2 cores with three networks and the DUST sync, embedded devnets fall behind at 1 000 and
  // 2 000 ms blocks (a block every 2-3 s) and keep up at 3 000 ms.
  const embedded = NETWORKS.filter((n) => config.networks[n].indexer === 'embedded').length;
  if (embedded === NETWORKS.length && config.devnet.blockTimeMs < MIN_BLOCK_TIME_ALL_DEVNETS_MS) {
    throw new ConfigError(
      `invalid setting devnet.blockTimeMs (NIGHTGATE_DEVNET_BLOCK_TIME_MS): ${config.devnet.blockTimeMs}` +
        ` ms is too short for three embedded networks (they fall behind below ${MIN_BLOCK_TIME_ALL_DEVNETS_MS}` +
        ` ms on 2 cores); use at least ${MIN_BLOCK_TIME_ALL_DEVNETS_MS}` +
        `, or serve fewer networks from the devnet`,
    );
  }
  checkWallets(config);
  if (config.dust.feeTtlMs > 0 && config.dust.feeTtlMs + config.dust.ttlSafetyMs > config.dust.reservationTtlMs) {
    throw new ConfigError(
      'invalid setting dust.feeTtlMs (NIGHTGATE_DUST_FEE_TTL_MS): with dust.ttlSafetyMs it must fit within ' +
        'dust.reservationTtlMs, so the fee intent expires before its UTXO can be reclaimed',
    );
  }
  if (config.dust.reservationTtlMs <= config.dust.ttlSafetyMs + 1_000) {
    throw new ConfigError(
      'invalid setting dust.ttlSafetyMs (NIGHTGATE_DUST_TTL_SAFETY_MS): must be more than a second shorter than ' +
        'dust.reservationTtlMs, so the fee intent expires before its UTXO can be reclaimed',
    );
  }
  if (config.state.redisUrl !== '' && !/^rediss?:\/\/[^\s]+$/.test(config.state.redisUrl)) {
    throw new ConfigError(
      `invalid setting state.redisUrl (NIGHTGATE_REDIS_URL): "${redactUrl(config.state.redisUrl)}" — expected redis://host:port or rediss://host:port`,
    );
  }
  for (const cidr of config.auth.trustedNetworks) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr))
      throw new ConfigError(`invalid setting auth.trustedNetworks (NIGHTGATE_TRUSTED_NETWORKS): "${cidr}" is not a CIDR`);
  }
  for (const cidr of config.metrics.allow) {
    if (!isCidr(cidr)) throw new ConfigError(`invalid setting metrics.allow (NIGHTGATE_METRICS_ALLOW): "${cidr}" is not a CIDR (e.g. 10.0.0.0/8)`);
  }
  if (config.metrics.listen !== '' && !/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/.test(config.metrics.listen)) {
    throw new ConfigError(`invalid setting metrics.listen (NIGHTGATE_METRICS_LISTEN): "${config.metrics.listen}" is not host:port (e.g. 127.0.0.1:9464)`);
  }
  for (const cidr of config.server.trustedProxies) {
    if (!isCidr(cidr))
      throw new ConfigError(
        `invalid setting server.trustedProxies (NIGHTGATE_TRUSTED_PROXIES): "${cidr}" is not a CIDR (a proxy's own address is e.g. 127.0.0.1/32)`,
      );
  }
  const ids = new Set<string>();
  for (const k of config.auth.keys) {
    if (ids.has(k.id)) throw new ConfigError(`invalid setting auth.keys: duplicate key id "${k.id}"`);
    const reserved = reservedKeyId(k.id);
    if (reserved !== undefined) throw new ConfigError(`invalid setting auth.keys: key id "${k.id}" ${reserved}; choose another id`);
    const problem = k.policy === undefined ? undefined : keyPolicyProblem(k.policy);
    if (problem !== undefined) throw new ConfigError(`invalid setting auth.keys: key "${k.id}": ${problem}`);
    ids.add(k.id);
  }
  const largestBody = Math.max(config.server.bodyLimit, config.server.proverBodyLimit);
  if (config.server.bodyBytesPerClient < largestBody) {
    throw new ConfigError(
      `invalid setting server.bodyBytesPerClient (NIGHTGATE_BODY_BYTES_PER_CLIENT): ${config.server.bodyBytesPerClient}` +
        ` is less than the largest body a route accepts (${largestBody}` +
        `, server.bodyLimit / server.proverBodyLimit), which could then never be sent`,
    );
  }
  if (config.server.bodyBytesInFlight < config.server.bodyBytesPerClient) {
    throw new ConfigError(
      `invalid setting server.bodyBytesInFlight (NIGHTGATE_BODY_BYTES_IN_FLIGHT): ${config.server.bodyBytesInFlight}` +
        ` is less than server.bodyBytesPerClient (${config.server.bodyBytesPerClient}` +
        `)`,
    );
  }
}

function isRpcUrl(text: string): boolean {
  try {
    return ['http:', 'https:', 'ws:', 'wss:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function isCidr(text: string): boolean {
  try {
    new CidrList([text]);
    return /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(text);
  } catch {
    return false;
  }
}

/** A URL on a host Midnight has retired (its hostname), or undefined. */
function retiredHost(url: string): string | undefined {
  if (!/^(https?|wss?):\/\//.test(url)) return undefined;
  const host = new URL(url).hostname;
  return RETIRED_HOSTS.includes(host) ? host : undefined;
}

/**
 * The server wallets come from exactly one source: a mnemonic (inline or in a file) or its seed
 * with `hd`, or hex seeds with `legacy`. With none, only embedded networks can sponsor (their
 * wallets are generated); a network served elsewhere then has none (checked where it starts).
 */
function checkWallets(config: Config): void {
  const d = config.dust;
  const hd = [
    d.walletMnemonic !== '' && 'dust.walletMnemonic',
    d.walletMnemonicFile !== '' && 'dust.walletMnemonicFile',
    d.walletSeed !== '' && 'dust.walletSeed',
  ].filter((x): x is string => x !== false);
  if (hd.length > 1) throw new ConfigError(`invalid settings ${hd.join(' and ')}: set one source of the server wallets`);
  if (d.walletDerivation === 'legacy') {
    if (hd.length > 0)
      throw new ConfigError(
        `invalid setting ${hd[0]}: dust.walletDerivation is legacy, which takes dust.walletSeeds; remove it or set dust.walletDerivation hd`,
      );
  } else if (d.walletSeeds.length > 0) {
    throw new ConfigError(
      "invalid setting dust.walletSeeds (NIGHTGATE_DUST_WALLET_SEEDS): these seeds are of nightgate's own derivation; to keep " +
        'them set dust.walletDerivation legacy (NIGHTGATE_DUST_WALLET_DERIVATION=legacy), or move to a mnemonic ' +
        '(docs/going-live.md)',
    );
  }
}
