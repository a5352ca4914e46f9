/**
 * The ledger checks made before a transaction is trusted with anything (worker-side only: this
 * loads the era's ledger package, ≈ 85 MB per thread).
 *
 * Signatures by hand: the ledger's `wellFormed` verifies signatures only on proven, bound
 * transactions, and skips them on proof-erased ones (in both eras). An unproven body
 * (/prove-and-balance) therefore has its intents' signatures checked here: every unshielded input
 * (guaranteed and fallible) and every DUST registration, over `signatureData(segment)`, the data
 * wallets sign. A Zswap offer itself carries no signature (its proofs authorise it).
 */
import { ledger, signatureOfEntry, type L } from './index.js';
import { ERA_TABLE, type Era } from './era.js';
import { release } from './release.js';

/** `wellFormed` strictness with proof verification off (dev proofs are mock-shaped; the chain verifies real ones). */
export function strictness(era: Era, checks: { balancing: boolean; limits: boolean; signatures: boolean }): L.WellFormedStrictness {
  const s = new (ledger(era).WellFormedStrictness)();
  s.enforceBalancing = checks.balancing;
  s.enforceLimits = checks.limits;
  s.verifySignatures = checks.signatures;
  s.verifyNativeProofs = false;
  s.verifyContractProofs = false;
  return s;
}

/** The signature a DUST registration carries, if it is signed. */
function registrationSignature(era: Era, marker: L.Signaturish): L.Signature | undefined {
  if (!(marker instanceof ledger(era).SignatureEnabled)) return undefined;
  return ERA_TABLE[era].registrationSignature(marker);
}

function checkOffer(era: Era, offer: L.UnshieldedOffer<L.Signaturish> | undefined, data: Uint8Array, where: string, made: unknown[]): void {
  if (!offer) return;
  const inputs = offer.inputs;
  const signatures = offer.signatures;
  // Ledger 9's entries are WASM objects (SignatureEnabled): free them with the rest.
  made.push(...signatures);
  if (signatures.length !== inputs.length) {
    throw new Error(`signature verification failed: ${where} has ${inputs.length} inputs and ${signatures.length} signatures`);
  }
  const verify = ledger(era).verifySignature;
  inputs.forEach((input, i) => {
    if (!verify(input.owner, data, signatureOfEntry(era, signatures[i]))) {
      throw new Error(`signature verification failed for supplied intent: ${where} input ${i}`);
    }
  });
}

type AnyIntent = L.Intent<L.Signaturish, L.Proofish, L.Bindingish>;

/**
 * Throws the reason when a signature of one intent does not verify. Every ledger object it reads
 * is pushed on `made`, for the caller to free.
 */
function verifyIntentSignature(era: Era, segment: number, intent: AnyIntent, made: unknown[]): void {
  const verify = ledger(era).verifySignature;
  const data = intent.signatureData(segment);
  const guaranteed = intent.guaranteedUnshieldedOffer;
  const fallible = intent.fallibleUnshieldedOffer;
  const dust = intent.dustActions;
  const registrations = dust?.registrations ?? [];
  made.push(guaranteed, fallible, dust, ...registrations);
  checkOffer(era, guaranteed, data, `segment ${segment} guaranteed unshielded offer`, made);
  checkOffer(era, fallible, data, `segment ${segment} fallible unshielded offer`, made);
  registrations.forEach((registration, i) => {
    const signature = registrationSignature(era, registration.signature);
    if (signature === undefined || !verify(registration.nightKey, data, signature)) {
      throw new Error(`signature verification failed for supplied intent: segment ${segment} DUST registration ${i}`);
    }
  });
}

/** Throws the reason when a signature in one of `tx`'s intents does not verify; `each` adds a check of its own per intent. */
export function verifyIntentSignatures(
  era: Era,
  tx: L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>,
  each?: (segment: number, intent: AnyIntent, made: unknown[]) => void,
): void {
  const intents = tx.intents;
  if (!intents) return;
  const made: unknown[] = [...intents.values()];
  try {
    for (const [segment, intent] of intents) {
      each?.(segment, intent, made);
      verifyIntentSignature(era, segment, intent, made);
    }
  } finally {
    release(...made);
  }
}
