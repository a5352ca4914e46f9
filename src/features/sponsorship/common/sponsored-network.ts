import type { NetworkName } from '../../../core/config/index.js';
import type { ProverBackend } from '../../../infra/prover/backend.js';
import type { DustAllocatorTable } from '../allocator/allocator.js';
import type { ProvingTarget } from './balance-task.js';
import type { SharedSnapshot } from '../allocator/shared-snapshot.js';

/** A network the server sponsors on: its DUST wallets' shared table and snapshot, and how it proves. */
export interface SponsoredNetwork {
  name: NetworkName;
  networkId: string;
  /** The keys of its server wallets (`WalletKeys`), in wallet-index order: secrets. */
  seeds: readonly string[];
  table: DustAllocatorTable;
  snapshot: SharedSnapshot;
  prover: ProvingTarget;
  /** The main-thread backend, for upstream and native (the worker proves through a port to it). */
  backend: ProverBackend;
  /** The chain's block time: the unit of the fee margin (src/features/sponsorship/common/fee-margin.ts). */
  blockTimeMs: number;
}
