// Everything of one network that belongs to one ledger era: the chain's state, the devnet's own
// wallets, the proving shapes, the indexer's Zswap observer and the synthetic traffic. A network
// holds one world at a time; at its switch height it replaces its ledger-8 world with a fresh
// ledger-9 one (no state migration exists between the eras' packages). Keys derive from seeds
// alone, so both worlds have the same addresses and DUST public keys.
import { createActors, type DevnetActors } from './actors.js';
import { BlockIndexer } from './block-indexer.js';
import { Chain, type ChainHead } from './chain.js';
import { registerCounterCircuit } from './counter-contract.js';
import type { IndexerStore } from './indexer-store.js';
import { kitFor, release, type Era, type LedgerKit } from './ledger-kit.js';
import type { DevnetLogger } from './logger.js';
import { MockProver } from './mock-prover.js';
import { TrafficGenerator } from './traffic.js';

export interface EraWorld {
  kit: LedgerKit;
  chain: Chain;
  actors: DevnetActors;
  prover: MockProver;
  indexer: BlockIndexer;
  traffic: TrafficGenerator;
}

export interface WorldSettings {
  name: string;
  networkId: string;
  seed: string;
  sponsorWallets: string[];
  store: IndexerStore;
  log: DevnetLogger;
}

/**
 * A world of `era`: a blank state, or `head`'s position without its state (a fresh state that
 * continues another era's block numbering and hash chain). `prover` is used when it is of `era`.
 */
export function createWorld(era: Era, settings: WorldSettings, head?: Omit<ChainHead, 'state'>, prover?: MockProver): EraWorld {
  const kit = kitFor(era);
  const own = prover && prover.kit.era === era ? prover : new MockProver(settings.networkId, kit);
  registerCounterCircuit(own);
  const chain = new Chain(kit, settings.networkId, head);
  const params = chain.state.parameters;
  const dustParams = params.dust;
  const actors = createActors(kit, settings.name, settings.seed, settings.sponsorWallets, dustParams);
  release(dustParams, params);
  return {
    kit,
    chain,
    actors,
    prover: own,
    indexer: new BlockIndexer(kit, settings.store, settings.seed),
    traffic: new TrafficGenerator(actors, settings.networkId, own, settings.log),
  };
}

/** Frees a world's chain state once nothing will use it again (its wallets' go with their GC). */
export function retireWorld(world: EraWorld): void {
  release(world.chain.state);
}
