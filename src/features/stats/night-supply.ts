/**
 * NIGHT supply: a protocol constant, not chain data (the indexer does not expose it).
 * 24,000,000,000 NIGHT is `MAX_SUPPLY` in the midnight-ledger repository (ledger/src/structure.rs),
 * and docs.midnight.network states "Total supply: 24 billion"; 1 NIGHT = 10^6 STAR
 * (LEDGER.md, "Units").
 */
import type { NightSupply } from './schemas.js';

const NIGHT_DECIMALS = 6;
const TOTAL_NIGHT = 24_000_000_000n;

export const NIGHT_SUPPLY: NightSupply = Object.freeze({
  total: TOTAL_NIGHT.toString(),
  totalSmallestUnit: (TOTAL_NIGHT * 10n ** BigInt(NIGHT_DECIMALS)).toString(),
  decimals: NIGHT_DECIMALS,
  source: Object.freeze({
    name: 'midnight-ledger MAX_SUPPLY (ledger/src/structure.rs)',
    url: 'https://github.com/midnightntwrk/midnight-ledger/blob/main/ledger/src/structure.rs',
  }),
}) as NightSupply;
