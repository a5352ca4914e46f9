// A network's era world to and from the snapshot its state directory keeps (persistence.ts): the
// chain's position and state, the devnet wallets' local states and the indexer's Zswap observer.
import { BlockIndexer } from './block-indexer.js';
import { createWorld, retireWorld, type EraWorld, type WorldSettings } from './era-world.js';
import { release, type Era } from './ledger-kit.js';
import type { ChainSnapshot } from './persistence.js';

/** The world's part of a snapshot; `timestampMs` stands for a chain that has no block time yet. */
export function worldSnapshot(
  world: EraWorld,
  timestampMs: number,
): Pick<ChainSnapshot, 'height' | 'hash' | 'timestampMs' | 'ledgerState' | 'dust' | 'shielded' | 'observer'> {
  const { chain, actors, indexer } = world;
  return {
    height: chain.height,
    hash: chain.hash,
    timestampMs: chain.timestampMs ?? timestampMs,
    ledgerState: chain.state.serialize(),
    dust: actors.dust.state.serialize(),
    shielded: actors.shielded.map((w) => w.state.serialize()),
    observer: indexer.snapshot(),
  };
}

/**
 * A world holding the saved `snapshot` of `era`: `world` itself when it runs that era, else a new
 * world in its place (and `world` retired).
 */
export function resumeWorld(world: EraWorld, era: Era, snapshot: ChainSnapshot, settings: WorldSettings): EraWorld {
  const head = { height: snapshot.height, hash: snapshot.hash, timestampMs: snapshot.timestampMs };
  let resumed = world;
  if (era !== world.kit.era) {
    retireWorld(world);
    resumed = createWorld(era, settings, head);
  }
  const { chain, actors, kit } = resumed;
  const { L } = kit;
  release(chain.state);
  chain.state = L.LedgerState.deserialize(snapshot.ledgerState);
  Object.assign(chain, head);
  actors.dust.state = L.DustLocalState.deserialize(snapshot.dust);
  actors.shielded.forEach((wallet, i) => {
    const saved = snapshot.shielded[i];
    if (saved) wallet.state = L.ZswapLocalState.deserialize(saved);
  });
  resumed.indexer = new BlockIndexer(kit, settings.store, settings.seed, snapshot.observer);
  return resumed;
}
