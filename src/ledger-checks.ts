/**
 * The ledger checks the devnet's chain and the sponsorship workers share (worker-side only: this
 * loads ledger-v8, ≈ 85 MB per thread).
 *
 * Signatures by hand: ledger-v8's `wellFormed` verifies signatures only on proven, bound
 * transactions, and skips them on proof-erased ones (docs/midnight/LEDGER.md; measured 2026-11-24).
 * An unproven body (/prove-and-balance) or a proof-erased check (the devnet's Zswap transactions)
 * therefore has its intents' signatures checked here: every unshielded input (guaranteed and
 * fallible) and every DUST registration, over `signatureData(segment)`, the data wallets sign.
 * A Zswap offer itself carries no signature (its proofs authorise it).
 */
import * as L from '@midnight-ntwrk/ledger-v8';
import { release } from './infra/ledger/release.js';

/** `wellFormed` strictness with proof verification off (dev proofs are mock-shaped; the chain verifies real ones). */
export function strictness(checks: { balancing: boolean; limits: boolean; signatures: boolean }): L.WellFormedStrictness {
  const s = new L.WellFormedStrictness();
  s.enforceBalancing = checks.balancing;
  s.enforceLimits = checks.limits;
  s.verifySignatures = checks.signatures;
  s.verifyNativeProofs = false;
  s.verifyContractProofs = false;
  return s;
}

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
      const dust = intent.dustActions;
      const registrations = dust?.registrations ?? [];
      made.push(guaranteed, fallible, dust, ...registrations);
      checkOffer(guaranteed, data, `segment ${segment} guaranteed unshielded offer`);
      checkOffer(fallible, data, `segment ${segment} fallible unshielded offer`);
      registrations.forEach((registration, i) => {
        const signature = signatureOf(registration.signature);
        if (signature === undefined || !L.verifySignature(registration.nightKey, data, signature)) {
          throw new Error(`signature verification failed for supplied intent: segment ${segment} DUST registration ${i}`);
        }
      });
    }
  } finally {
    release(...made);
  }
}
