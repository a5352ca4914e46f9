/**
 * Epoch position at any instant from one anchor (an epoch's number, length and start), so the
 * epoch route stays exact between indexer refreshes: elapsed time is counted from the anchor and
 * rolls into the next epochs when it passes their boundaries.
 *
 * Anchors come from the indexer's `currentEpochInfo` (SPO indexer, may be null), from a node's
 * `sidechain_getStatus` (`networks.<n>.nodeRpc`) or, when the epoch length is known, from chain
 * time: Midnight's slots are Aura slots of 6 s counted from the Unix epoch and an epoch is 300
 * slots on the preview/preprod chain specs (LEDGER.md, "Units"), so epoch n starts at n × 1800 s.
 * Mainnet's length must be read live.
 */
import type { NetworkName } from '../../core/config/index.js';

const SLOT_SECONDS = 6;
const SLOTS_PER_EPOCH = 300;
/** Epoch lengths fixed by the public chain specs; mainnet is absent on purpose. */
export const CHAIN_SPEC_EPOCH_SECONDS: Readonly<Partial<Record<NetworkName, number>>> = {
  preview: SLOT_SECONDS * SLOTS_PER_EPOCH,
  preprod: SLOT_SECONDS * SLOTS_PER_EPOCH,
};
/** The embedded devnet follows the preview/preprod chain spec on every network it serves. */
export const DEVNET_EPOCH_SECONDS = SLOT_SECONDS * SLOTS_PER_EPOCH;

export interface EpochAnchor {
  number: number;
  durationSeconds: number;
  /** Start of epoch `number`, ms since the Unix epoch. */
  startMs: number;
}

interface EpochView {
  number: number;
  durationSeconds: number;
  elapsedSeconds: number;
  remainingSeconds: number;
  /** 0–1, four decimals. */
  progress: number;
}

/** The anchor `currentEpochInfo` implies when it was read at `readAt`. */
export function anchorFromInfo(info: { epochNo: number; durationSeconds: number; elapsedSeconds: number }, readAt: number): EpochAnchor {
  return { number: info.epochNo, durationSeconds: info.durationSeconds, startMs: readAt - info.elapsedSeconds * 1000 };
}

/** The anchor chain time implies: epoch ⌊t / length⌋ started at a multiple of the length. */
export function anchorFromChainTime(durationSeconds: number, now: number): EpochAnchor {
  const lengthMs = durationSeconds * 1000;
  const number = Math.floor(now / lengthMs);
  return { number, durationSeconds, startMs: number * lengthMs };
}

/**
 * The anchor a node's status implies: epoch n starts at n × length since the Unix epoch, so the
 * length is the next epoch's start over n + 1. Undefined when that is not a whole number of
 * seconds: not a chain this arithmetic describes.
 */
export function anchorFromNodeStatus(epoch: number, nextEpochStartMs: number): EpochAnchor | undefined {
  const lengthMs = nextEpochStartMs / (epoch + 1);
  if (!Number.isInteger(lengthMs / 1000) || lengthMs <= 0) return undefined;
  return { number: epoch, durationSeconds: lengthMs / 1000, startMs: nextEpochStartMs - lengthMs };
}

export function epochAt(anchor: EpochAnchor, now: number): EpochView {
  const { durationSeconds } = anchor;
  const lengthMs = durationSeconds * 1000;
  let number = anchor.number;
  let elapsedMs = Math.max(0, now - anchor.startMs);
  if (elapsedMs >= lengthMs) {
    const passed = Math.floor(elapsedMs / lengthMs);
    number += passed;
    elapsedMs -= passed * lengthMs;
  }
  const elapsedSeconds = Math.floor(elapsedMs / 1000);
  return {
    number,
    durationSeconds,
    elapsedSeconds,
    remainingSeconds: durationSeconds - elapsedSeconds,
    progress: Math.round((elapsedSeconds / durationSeconds) * 10_000) / 10_000,
  };
}
