// Signature checks for the one kind of transaction the ledger cannot check as submitted on the
// devnet: one that carries a Zswap offer. ledger-v8's `wellFormed` verifies Zswap proofs whatever
// the strictness says (measured 2026-11-24: "Invalid proof -- while verifying Zswap proof" with every
// check off), and the devnet's proofs are mock-shaped; the proof-erased transaction passes but its
// signatures are then not verified either (docs/midnight/LEDGER.md). So such a transaction is checked
// proof-erased for everything else, and here for what its intents sign: every unshielded input
// (guaranteed and fallible) and every DUST registration, over `signatureData(segment)` — the data
// wallets sign. A Zswap offer itself carries no signature (its proofs authorise it).
import { verifyIntentSignatures as verifySignatures } from '../ledger-checks.js';
import { L, release } from './ledger-kit.js';

/**
 * Throws the reason when a signature in one of `tx`'s intents does not verify (src/ledger-checks.ts),
 * or when an intent beside the Zswap offer carries a maintenance update, which is signed by the
 * contract's committee that only the ledger knows.
 */
export function verifyIntentSignatures(tx: L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>): void {
  const intents = tx.intents;
  if (intents) {
    const made: unknown[] = [...intents.values()];
    try {
      for (const [segment, intent] of intents) {
        const actions = intent.actions;
        made.push(...actions);
        if (actions.some((a) => a instanceof L.MaintenanceUpdate)) {
          throw new Error(`segment ${segment}: a maintenance update beside a Zswap offer cannot be checked on the devnet (dev proofs); submit it separately`);
        }
      }
    } finally {
      release(...made);
    }
  }
  verifySignatures(tx);
}

/** Whether `tx` carries a Zswap offer (then `wellFormed` would verify its proofs, see the top). */
export function hasZswapOffer(tx: L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>): boolean {
  const guaranteed = tx.guaranteedOffer;
  const fallible = tx.fallibleOffer;
  const found = guaranteed !== undefined || (fallible !== undefined && fallible.size > 0);
  release(guaranteed, ...(fallible?.values() ?? []));
  return found;
}
