// Signature checks for the one kind of transaction the ledger cannot check as submitted on the
// devnet: one that carries a Zswap offer. The ledger's `wellFormed` verifies Zswap proofs whatever
// the strictness says (measured on ledger 8: "Invalid proof -- while verifying Zswap
// proof" with every check off), and the devnet's proofs are mock-shaped; the proof-erased
// transaction passes but its signatures are then not verified either (notes/LEDGER.md). So
// such a transaction is checked proof-erased for everything else, and here for what its intents
// sign: every unshielded input (guaranteed and fallible) and every DUST registration, over
// `signatureData(segment)` — the data wallets sign. A Zswap offer itself carries no signature (its
// proofs authorise it). Both eras are checked the same way.
import { verifyIntentSignatures as verifyEach } from '@nightgate/ledger/checks';
import { release, type AnyTransaction, type L, type LedgerKit } from './ledger-kit.js';

function refuseMaintenance(kit: LedgerKit, segment: number, intent: L.Intent<L.Signaturish, L.Proofish, L.Bindingish>, made: unknown[]): void {
  const actions = intent.actions;
  made.push(...actions);
  if (actions.some((a) => a instanceof kit.L.MaintenanceUpdate)) {
    throw new Error(`segment ${segment}: a maintenance update beside a Zswap offer cannot be checked on the devnet (dev proofs); submit it separately`);
  }
}

/**
 * Throws the reason when a signature in one of `tx`'s intents does not verify, or when an intent
 * beside the Zswap offer carries a maintenance update, which is signed by the contract's committee
 * that only the ledger knows.
 */
export function verifyIntentSignatures(kit: LedgerKit, tx: AnyTransaction): void {
  verifyEach(kit.era, tx, (segment, intent, made) => refuseMaintenance(kit, segment, intent, made));
}

/** Whether `tx` carries a Zswap offer (then `wellFormed` would verify its proofs, see the top). */
export function hasZswapOffer(tx: AnyTransaction): boolean {
  const guaranteed = tx.guaranteedOffer;
  const fallible = tx.fallibleOffer;
  const found = guaranteed !== undefined || (fallible !== undefined && fallible.size > 0);
  release(guaranteed, ...(fallible?.values() ?? []));
  return found;
}
