/**
 * A worker's replica of the server DUST wallets: decoded from the shared snapshot the sync thread
 * publishes, and decoded again only when the snapshot's version moves (at block pace).
 */
import * as L from '@midnight-ntwrk/ledger-v8';
import { SharedSnapshot } from '../../src/dust/shared-snapshot.js';
import { decodeWalletState, dustSecretKey } from '../../src/dust/wallet-state.js';

export interface WalletReplica {
  version: number;
  params: L.LedgerParameters;
  wallets: L.DustLocalState[];
}

const replicas = new WeakMap<SharedArrayBuffer, WalletReplica>();
const keys = new Map<string, L.DustSecretKey>();

/** The latest replica, or undefined when the sync has published nothing yet. */
export function replicaOf(buffer: SharedArrayBuffer): WalletReplica | undefined {
  const snapshot = new SharedSnapshot(buffer);
  const cached = replicas.get(buffer);
  if (cached && cached.version === snapshot.version) return cached;
  const read = snapshot.read();
  if (!read) return undefined;
  const state = decodeWalletState(read.data);
  const replica: WalletReplica = {
    version: read.version,
    params: L.LedgerParameters.deserialize(state.params),
    wallets: state.wallets.map((w) => L.DustLocalState.deserialize(w)),
  };
  replicas.set(buffer, replica);
  return replica;
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
