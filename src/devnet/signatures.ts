// Signature checks for the one kind of transaction the ledger cannot check as submitted on the
// devnet: one that carries a Zswap offer. ledger-v8's `wellFormed` verifies Zswap proofs whatever
// the strictness says (measured 2026-11-24: "Invalid proof -- while verifying Zswap proof" with every
// check off), and the devnet's proofs are mock-shaped; the proof-erased transaction passes but its
// signatures are then not verified either (docs/midnight/LEDGER.md). So such a transaction is checked
// proof-erased for everything else, and here for what its intents sign: every unshielded input
// (guaranteed and fallible) and every DUST registration, over `signatureData(segment)` — the data
// wallets sign. A Zswap offer itself carries no signature (its proofs authorise it).
import { L, release } from './ledger-kit.js';

/** `midnight:signature[v1]:` then the 64-byte BIP-340 signature (SignatureEnabled.serialize()). */
const SIGNATURE_BYTES = 64;

function signatureOf(marker: L.Signaturish): L.Signature | undefined {
  if (!(marker instanceof L.SignatureEnabled)) return undefined;
  const bytes = marker.serialize();
  return Buffer.from(bytes.subarray(bytes.length - SIGNATURE_BYTES)).toString('hex');
}

function checkOffer(offer: L.UnshieldedOffer<L.Signaturish> | undefined, data: Uint8Array, where: string): void {
  if (!offer) return;
  const inputs = offer.inputs;
  const signatures = offer.signatures;
  if (signatures.length !== inputs.length) {
    throw new Error(`signature verification failed: ${where} has ${inputs.length} inputs and ${signatures.length} signatures`);
  }
  inputs.forEach((input, i) => {
    if (!L.verifySignature(input.owner, data, signatures[i] as L.Signature)) {
      throw new Error(`signature verification failed for supplied intent: ${where} input ${i}`);
    }
  });
}

/** Throws the reason when a signature in one of `tx`'s intents does not verify. */
export function verifyIntentSignatures(tx: L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>): void {
  const intents = tx.intents;
  if (!intents) return;
  const made: unknown[] = [...intents.values()];
  try {
    for (const [segment, intent] of intents) {
      const data = intent.signatureData(segment);
      const guaranteed = intent.guaranteedUnshieldedOffer;
      const fallible = intent.fallibleUnshieldedOffer;
      const actions = intent.actions;
      const dust = intent.dustActions;
      const registrations = dust?.registrations ?? [];
      made.push(guaranteed, fallible, ...actions, dust, ...registrations);
      checkOffer(guaranteed, data, `segment ${segment} guaranteed unshielded offer`);
      checkOffer(fallible, data, `segment ${segment} fallible unshielded offer`);
      registrations.forEach((registration, i) => {
        const signature = signatureOf(registration.signature);
        if (signature === undefined || !L.verifySignature(registration.nightKey, data, signature)) {
          throw new Error(`signature verification failed for supplied intent: segment ${segment} DUST registration ${i}`);
        }
      });
      // A maintenance update is signed by the contract's committee, which only the ledger knows.
      if (actions.some((a) => a instanceof L.MaintenanceUpdate)) {
        throw new Error(`segment ${segment}: a maintenance update beside a Zswap offer cannot be checked on the devnet (dev proofs); submit it separately`);
      }
    }
  } finally {
    release(...made);
  }
}

/** Whether `tx` carries a Zswap offer (then `wellFormed` would verify its proofs, see the top). */
export function hasZswapOffer(tx: L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>): boolean {
  const guaranteed = tx.guaranteedOffer;
  const fallible = tx.fallibleOffer;
  const found = guaranteed !== undefined || (fallible !== undefined && fallible.size > 0);
  release(guaranteed, ...(fallible?.values() ?? []));
  return found;
}
