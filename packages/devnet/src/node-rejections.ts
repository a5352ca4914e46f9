// How a Midnight node answers a transaction its runtime refuses: `1010: Invalid Transaction: Custom
// error: N`, N naming the ledger's failure. The devnet answers the DUST ones the same way (beside
// its own body: `error`, `code`), so a sponsor can be tested against what a node says. Which
// ledger reasons map to which code was measured on both eras' packages (ledger-v8 8.1.0,
// ledger-v9 1.0.0-rc.3).
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { release, type AnyTransaction } from './ledger-kit.js';
import type { Chain } from './chain.js';
import { SLOT_SECONDS } from './epoch.js';

const NODE_INVALID_TRANSACTION = 1010;

const DUST_REJECTIONS = {
  InvalidDustSpendProof: 170,
  OutOfDustValidityWindow: 171,
  InsufficientDustForRegistrationFee: 173,
  DustDoubleSpend: 196,
} as const;

type DustRejectionName = keyof typeof DUST_REJECTIONS;

/** The ledger's reasons, as its errors render them, per node code. */
const PATTERNS: ReadonlyArray<readonly [RegExp, DustRejectionName]> = [
  [/attempted to double spend Dust UTXO|dust double spend/i, 'DustDoubleSpend'],
  [/dust is outside of its validity window/i, 'OutOfDustValidityWindow'],
  [/insufficient dust to cover registration fee/i, 'InsufficientDustForRegistrationFee'],
  [/dust spend proof failed to verify/i, 'InvalidDustSpendProof'],
];

export function dustRejectionOf(reason: string): DustRejectionName | undefined {
  return PATTERNS.find(([pattern]) => pattern.test(reason))?.[1];
}

/** The error `/submit` answers for a transaction the ledger refused (`reason`). */
export function rejection(err: unknown): DevnetError {
  if (err instanceof DevnetError) return err;
  const reason = reasonOf(err);
  const name = dustRejectionOf(reason);
  if (!name) return new DevnetError(DevnetErrorCode.TX_REJECTED, 400, reason);
  const custom = DUST_REJECTIONS[name];
  return new DevnetError(DevnetErrorCode.TX_REJECTED, 400, `${NODE_INVALID_TRANSACTION}: Invalid Transaction: Custom error: ${custom} (${name}: ${reason})`, {
    nodeError: { code: NODE_INVALID_TRANSACTION, customError: custom, name },
  });
}

/** How far ahead of now a node's mempool dates the block it checks a DUST spend against. */
export const MEMPOOL_LOOKAHEAD_MS = 2 * SLOT_SECONDS * 1000;

function spendsDust(tx: AnyTransaction): boolean {
  const intents = tx.intents;
  if (!intents) return false;
  const all = [...intents.values()];
  const actions = all.map((i) => i.dustActions);
  const found = actions.some((a) => a !== undefined && a.spends.length > 0);
  release(...actions, ...all);
  return found;
}

/**
 * The node's mempool check of a DUST spend: the transaction must also be valid in a block two
 * slots from now. A spend whose `ctime` leaves it outside the DUST validity window by then is
 * refused with 171, as a node refuses it.
 */
export function mempoolCheck(chain: Chain, tx: AnyTransaction, nowMs: number): void {
  if (!spendsDust(tx)) return;
  try {
    chain.validate(tx, nowMs + MEMPOOL_LOOKAHEAD_MS, chain.kit.fullChecks());
  } catch (err) {
    const reason = reasonOf(err);
    if (dustRejectionOf(reason) === 'OutOfDustValidityWindow') throw err;
  }
}
