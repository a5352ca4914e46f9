/** The pool keeper's worker tasks (`poolAddresses`, `poolSplit` in worker/tasks/): arguments and results, no ledger. */
import type { Era } from '../../../infra/ledger/index.js';

interface PoolAddressesArgs {
  /** The network's ledger era (a wallet's NIGHT address is the same in both). */
  era: Era;
  networkId: string;
  /** Server wallets' keys (`WalletKeys`), in wallet-index order. */
  seeds: string[];
}

export interface WalletAddress {
  /** 64-hex ledger address of the wallet's NIGHT. */
  hex: string;
  /** The same, Bech32m as the indexer shows it. */
  bech32: string;
  /** The wallet's DUST address, Bech32m (`mn_dust…`): where its registered NIGHT sends DUST. */
  dust: string;
}

/** A NIGHT UTXO as the indexer reports it (value in STAR, decimal). */
export interface NightUtxo {
  value: string;
  intentHash: string;
  outputIndex: number;
  /** Created at, seconds since the epoch. */
  ctime?: number;
  /** Registered for DUST generation: it generates DUST for its owner's DUST address. */
  registered?: boolean;
}

interface PoolSplitArgs {
  /** The network's ledger era: the splits are built, signed and serialized in it. */
  era: Era;
  networkId: string;
  seeds: string[];
  /** One split per entry: the wallet's NIGHT UTXO to spend into `outputs` UTXOs back to itself. */
  splits: Array<{ wallet: number; utxo: NightUtxo }>;
  outputs: number;
  /** TTL of each split's intent, ms since the epoch. */
  ttl: number;
}

declare module '../../../infra/pool/tasks.js' {
  interface TaskMap {
    /** The NIGHT address of each server wallet. */
    poolAddresses: { args: PoolAddressesArgs; result: { nightToken: string; wallets: WalletAddress[] } };
    /** Unproven, signed self-transfers that split NIGHT UTXOs; sponsored like any user transaction. */
    poolSplit: { args: PoolSplitArgs; result: Uint8Array[] };
  }
}
