/**
 * The server DUST wallets of one network and the replay of the indexer's `dustLedgerEvents` into
 * them (docs/sponsorship.md, "What happens to a request"): each run of events is replayed with the ledger of its era,
 * into every wallet or none.
 */
import { ledger, release, type Era, type L } from '../../../infra/ledger/index.js';
import type { TipParameters } from './tip-parameters.js';
import { dustSecretKey } from './wallet-state.js';

export interface Wallet {
  sk: L.DustSecretKey;
  state: L.DustLocalState;
}

export interface PendingEvent {
  id: number;
  raw: Uint8Array;
  era: Era;
}

/** Empty wallets of `era` (the era's DUST parameters, or its initial ones until the tip's are read). */
export function freshWallets(era: Era, seeds: readonly string[], tip: TipParameters): Wallet[] {
  const L = ledger(era);
  const params = tip.dustParamsEra === era ? undefined : L.LedgerParameters.initialParameters();
  const dust = params ? params.dust : tip.dustParams!;
  try {
    return seeds.map((seed) => ({ sk: dustSecretKey(era, seed), state: new L.DustLocalState(dust) }));
  } finally {
    if (params) release(dust, params);
  }
}

/** Replays one era's events into every wallet, all or none. */
export function replay(wallets: readonly Wallet[], raw: Uint8Array): void {
  const next: L.DustLocalState[] = [];
  try {
    for (const w of wallets) {
      const replayed = w.state.replayRawEvents(w.sk, raw);
      next.push(replayed.state);
      // The replay's own wrapper holds a copy of the changes: free it now.
      release(replayed);
    }
  } catch (err) {
    release(...next);
    throw err;
  }
  wallets.forEach((w, i) => {
    // Each block leaves a whole wallet state behind: free it now.
    release(w.state);
    w.state = next[i]!;
  });
}

/** Consecutive events of the same era, in order: each run is replayed with its era's ledger. */
export function runsByEra(events: readonly PendingEvent[]): Array<{ era: Era; events: PendingEvent[] }> {
  const runs: Array<{ era: Era; events: PendingEvent[] }> = [];
  for (const e of events) {
    const last = runs[runs.length - 1];
    if (last && last.era === e.era) last.events.push(e);
    else runs.push({ era: e.era, events: [e] });
  }
  return runs;
}
