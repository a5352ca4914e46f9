/**
 * A worker's replica of the server DUST wallets: decoded from the shared snapshot the sync thread
 * publishes, and decoded again only when the snapshot's version moves (at block pace). Decoding
 * costs ~25–30 ms for two devnet wallets, so the cache is what makes sponsorship fast: it is keyed
 * by the snapshot's identity word, not by the SharedArrayBuffer object, because every task message
 * delivers a new SharedArrayBuffer object over the same memory (a WeakMap on it never hits).
 */
import * as L from '@midnight-ntwrk/ledger-v8';
import { release } from '../../src/infra/ledger/release.js';
import { SharedSnapshot } from '../../src/dust/shared-snapshot.js';
import { decodeWalletState, dustSecretKey, utxoKey } from '../../src/dust/wallet-state.js';

export interface WalletReplica {
  version: number;
  params: L.LedgerParameters;
  /** When (ms) the parameters were read from the tip (see `pricesAt` for the latest confirmation). */
  paramsAt: number;
  wallets: L.DustLocalState[];
  /** Per wallet, allocator key → UTXO; built on first use (the `utxos` getter copies every UTXO out of WASM). */
  byKey: Array<Map<bigint, L.QualifiedDustOutput> | undefined>;
}

/** identity → replica; one per network, bounded in case snapshots are ever re-created. */
const replicas = new Map<number, WalletReplica>();
const MAX_REPLICAS = 16;
let decodes = 0;

/** How many times this thread decoded a snapshot (tests assert the cache holds). */
export function replicaDecodes(): number {
  return decodes;
}
const keys = new Map<string, L.DustSecretKey>();

/** The latest replica, or undefined when the sync has published nothing yet. */
export function replicaOf(buffer: SharedArrayBuffer): WalletReplica | undefined {
  const snapshot = new SharedSnapshot(buffer);
  const identity = snapshot.identity;
  const cached = replicas.get(identity);
  if (cached && cached.version === snapshot.version) return cached;
  const read = snapshot.read();
  if (!read) return undefined;
  decodes++;
  const state = decodeWalletState(read.data);
  const replica: WalletReplica = {
    version: read.version,
    params: L.LedgerParameters.deserialize(state.params),
    paramsAt: state.paramsAt,
    wallets: state.wallets.map((w) => L.DustLocalState.deserialize(w)),
    byKey: [],
  };
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

function retire(replica: WalletReplica | undefined): void {
  if (replica) release(replica.params, ...replica.wallets);
}

/** Since when the replica's fee prices are known to be the tip's: their read, or a later confirmation. */
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

/** DUST secret keys are derived once per thread per seed. */
export function secretKeyOf(seed: string): L.DustSecretKey {
  let sk = keys.get(seed);
  if (!sk) {
    sk = dustSecretKey(seed);
    keys.set(seed, sk);
  }
  return sk;
}
