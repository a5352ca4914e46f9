/**
 * A worker's replica of the server DUST wallets: decoded from the shared snapshot the sync thread
 * publishes, and decoded again only when the snapshot's version moves (at block pace). Decoding
 * costs ~25–30 ms for two devnet wallets, so the cache is what makes sponsorship fast: it is keyed
 * by the snapshot's identity word, not by the SharedArrayBuffer object, because every task message
 * delivers a new SharedArrayBuffer object over the same memory (a WeakMap on it never hits).
 *
 * The replica is read with the ledger of the era the snapshot names: the sync thread replays each
 * era's events with its own ledger and starts the wallets afresh when the chain changes era.
 */
import { ledger, release, type Era, type L } from '../../../infra/ledger/index.js';
import { SharedSnapshot } from '../allocator/shared-snapshot.js';
import { decodeWalletState, dustSecretKey, utxoKey } from '../wallets/wallet-state.js';

export interface WalletReplica {
  version: number;
  era: Era;
  params: L.LedgerParameters;
  /** The serialized parameters: the key of the price scenarios built from them (`pricesWithin`). */
  paramsBytes: Uint8Array;
  /** Since when (ms) the parameters are the tip's: the time of the tip block they were read at. */
  paramsAt: number;
  /** The latest block time (ms) the wallets are known at: a DUST spend's ctime is never later. */
  chainTime: number;
  wallets: L.DustLocalState[];
  /** Per wallet, allocator key → UTXO; built on first use (the `utxos` getter copies every UTXO out of WASM). */
  byKey: Array<Map<bigint, L.QualifiedDustOutput> | undefined>;
}

/** identity → replica; one per network, bounded in case snapshots are ever re-created. */
const replicas = new Map<number, WalletReplica>();
const MAX_REPLICAS = 16;
const keys = new Map<string, L.DustSecretKey>();

/** The latest replica, or undefined when the sync has published nothing yet. */
export function replicaOf(buffer: SharedArrayBuffer): WalletReplica | undefined {
  const snapshot = new SharedSnapshot(buffer);
  const identity = snapshot.identity;
  const cached = replicas.get(identity);
  if (cached && cached.version === snapshot.version) return cached;
  const read = snapshot.read();
  if (!read) return undefined;
  const replica = decodeReplica(read.version, read.data);
  replicas.delete(identity);
  if (replicas.size >= MAX_REPLICAS) {
    const oldest = replicas.keys().next().value as number;
    retire(replicas.get(oldest));
    replicas.delete(oldest);
  }
  replicas.set(identity, replica);
  // One task at a time per thread (piscina's default), and a task takes its replica afresh: the
  // one replaced is no longer in use. Free its ledger objects now, not at some major GC.
  retire(cached);
  return replica;
}

function decodeReplica(version: number, data: Uint8Array): WalletReplica {
  const state = decodeWalletState(data);
  const L = ledger(state.era);
  return {
    version,
    era: state.era,
    params: L.LedgerParameters.deserialize(state.params),
    paramsBytes: state.params,
    paramsAt: state.paramsAt,
    chainTime: state.chainTime,
    wallets: state.wallets.map((w) => L.DustLocalState.deserialize(w)),
    byKey: [],
  };
}

function retire(replica: WalletReplica | undefined): void {
  if (replica) release(replica.params, ...replica.wallets);
}

/** Since when the replica's fee prices are known to be the tip's: their block, or a later confirmation. */
export function pricesAt(replica: WalletReplica, buffer: SharedArrayBuffer): number {
  return Math.max(replica.paramsAt, new SharedSnapshot(buffer).confirmedAt);
}

/** The replica's UTXO under an allocator key, or undefined when this replica does not hold it. */
export function utxoOf(replica: WalletReplica, walletIndex: number, key: bigint): L.QualifiedDustOutput | undefined {
  const wallet = replica.wallets[walletIndex];
  if (!wallet) return undefined;
  let index = replica.byKey[walletIndex];
  if (!index) {
    index = new Map(wallet.utxos.map((q) => [utxoKey(q.nonce), q]));
    replica.byKey[walletIndex] = index;
  }
  return index.get(key);
}

/** DUST secret keys are derived once per thread per era and seed. */
export function secretKeyOf(era: Era, seed: string): L.DustSecretKey {
  const id = `${era}:${seed}`;
  let sk = keys.get(id);
  if (!sk) {
    sk = dustSecretKey(era, seed);
    keys.set(id, sk);
  }
  return sk;
}

/**
 * Why `feesWithMargin` is not enough: it prices a transaction after n blocks that are full in
 * every dimension alike, and under such blocks only the overall price rises (×1.046 a block). A
 * block full in one dimension only — sponsored transfers fill bytes churned long before anything
 * else — also moves the dimension factors toward it, so the price of a transaction dominated by
 * that dimension rises ≈ ×1.108 a block (measured in both eras), and a fee with n blocks of
 * `feesWithMargin` falls short after a few full blocks. So the fee is the highest price among the
 * ledger's own updates after n blocks of each fullness pattern that can push a factor up: all
 * dimensions, or one factor's dimensions alone (the write factor prices bytes written and churned).
 * Ledger 9's update keeps the overall price at its floor (`min_block_price`) or above, so the
 * prices simulated with its ledger hold at the floor too.
 */
const FULLNESS: readonly L.NormalizedCost[] = [
  { readTime: 1, computeTime: 1, blockUsage: 1, bytesWritten: 1, bytesChurned: 1 },
  { readTime: 1, computeTime: 0, blockUsage: 0, bytesWritten: 0, bytesChurned: 0 },
  { readTime: 0, computeTime: 1, blockUsage: 0, bytesWritten: 0, bytesChurned: 0 },
  { readTime: 0, computeTime: 0, blockUsage: 1, bytesWritten: 0, bytesChurned: 0 },
  { readTime: 0, computeTime: 0, blockUsage: 0, bytesWritten: 1, bytesChurned: 1 },
];

/** One price history: per fullness pattern, the state after the blocks simulated so far, and the prices after each block. */
interface Scenarios {
  era: Era;
  bytes: Uint8Array;
  states: L.LedgerState[];
  /** steps[k][p]: the parameters after k blocks of pattern p (steps[0]: the tip's, per pattern). */
  steps: L.LedgerParameters[][];
  /** When each simulated block is dated (only the order matters to the price update). */
  startMs: number;
}

/** A few price histories per thread: one per network is what is used (the tip's parameters). */
const histories: Scenarios[] = [];
const MAX_HISTORIES = 4;
const SIMULATED_BLOCK_MS = 6_000;

function historyOf(era: Era, networkId: string, params: L.LedgerParameters, bytes: Uint8Array): Scenarios {
  const known = histories.find((h) => h.era === era && Buffer.compare(h.bytes, bytes) === 0);
  if (known) return known;
  const L = ledger(era);
  const states = FULLNESS.map(() => {
    const state = L.LedgerState.blank(networkId);
    state.parameters = params;
    return state;
  });
  const made: Scenarios = { era, bytes: Uint8Array.from(bytes), states, steps: [states.map((s) => s.parameters)], startMs: Date.now() };
  if (histories.length >= MAX_HISTORIES) forget(histories.shift()!);
  histories.push(made);
  return made;
}

function forget(h: Scenarios): void {
  release(...h.states, ...h.steps.flat());
}

/**
 * The prices a fee must hold at for a transaction that may land in any of the next `blocks` blocks
 * after the tip whose parameters the replica holds: one set of parameters per fullness pattern.
 */
export function pricesWithin(replica: WalletReplica, networkId: string, blocks: number): L.LedgerParameters[] {
  const h = historyOf(replica.era, networkId, replica.params, replica.paramsBytes);
  const n = Math.max(0, Math.floor(blocks));
  while (h.steps.length <= n) {
    const k = h.steps.length;
    const at = new Date(h.startMs + k * SIMULATED_BLOCK_MS);
    h.states = h.states.map((state, p) => {
      const next = state.postBlockUpdate(at, FULLNESS[p]!, 1);
      release(state);
      return next;
    });
    h.steps.push(h.states.map((s) => s.parameters));
  }
  // Under each pattern the overall price rises by the largest step every block while the factors
  // that fall do so more slowly (measured: ≈ ×0.97 a block), so no transaction's price under a
  // pattern is higher at an earlier block: the prices after the n-th block are the ones to hold at.
  return h.steps[n]!;
}

/** The highest fee `tx` is charged at any of `prices`. */
export function feeWithin(tx: Pick<L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>, 'fees'>, prices: readonly L.LedgerParameters[]): bigint {
  let most = 0n;
  for (const p of prices) {
    const fee = tx.fees(p);
    if (fee > most) most = fee;
  }
  return most;
}
