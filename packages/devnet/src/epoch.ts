// Epochs and the D-parameter, which a real indexer takes from the partner-chain (SPO) data.
// Midnight's preview/preprod chain specs use 300 slots of 6 s (30-minute epochs) counted from
// the Unix epoch, so the epoch number follows from the clock alone (LEDGER.md, "Units").
export const SLOT_SECONDS = 6;
const SLOTS_PER_EPOCH = 300;
const EPOCH_SECONDS = SLOT_SECONDS * SLOTS_PER_EPOCH;

interface EpochInfo {
  epochNo: number;
  durationSeconds: number;
  elapsedSeconds: number;
}

export function epochAt(timeMs: number): EpochInfo {
  const seconds = Math.floor(timeMs / 1000);
  return {
    epochNo: Math.floor(seconds / EPOCH_SECONDS),
    durationSeconds: EPOCH_SECONDS,
    elapsedSeconds: seconds % EPOCH_SECONDS,
  };
}

export function epochBoundsMs(epochNo: number): { startMs: number; endMs: number } {
  return { startMs: epochNo * EPOCH_SECONDS * 1000, endMs: (epochNo + 1) * EPOCH_SECONDS * 1000 };
}

/**
 * A fixed, plausible committee composition: the devnet has one block author, but consumers expect
 * the federated-plus-registered shape Midnight launched with. It is set once, at genesis, so the
 * history has exactly one change.
 */
export const D_PARAMETER = { numPermissionedCandidates: 10, numRegisteredCandidates: 0 } as const;
