/**
 * The user's transaction as the sponsorship task reads it (src/features/sponsorship/worker/sponsor.ts): deserialized
 * by the kind and era its header tag names, bound when it arrives proven, and the ledger's
 * refusals of it reported as the request's fault.
 */
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import { expectEra, expectKind, readTransactionTag, type TransactionKind } from '../common/transaction-tag.js';
import type { SponsorKind } from '../common/balance-task.js';
import { ledger, release as freeLedger, type Era, type L } from '../../../infra/ledger/index.js';

const ACCEPTED: Record<SponsorKind, TransactionKind[]> = {
  'prove-and-balance': ['unproven'],
  'balance-only': ['proven', 'finalized'],
};

export type AnyTx = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

export function deserialize(bytes: Uint8Array, kind: SponsorKind, era: Era): AnyTx {
  expectEra(bytes, era);
  const tag = readTransactionTag(bytes);
  expectKind(tag, ACCEPTED[kind]);
  let tx: AnyTx;
  try {
    tx = ledger(era).Transaction.deserialize(tag.markers[0], tag.markers[1], tag.markers[2], bytes) as AnyTx;
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the transaction does not deserialize: ${(err as Error).message}`);
  }
  // A proven but unbound transaction is bound here: only transactions of the same kind merge,
  // and the fee part arrives proven and bound. Binding needs no secret.
  if (tag.kind !== 'proven') return tx;
  try {
    return (tx as L.Transaction<L.Signaturish, L.Proof, L.PreBinding>).bind() as AnyTx;
  } finally {
    freeLedger(tx);
  }
}

/**
 * What the ledger refuses about the user's own transaction — built for another network, parts
 * that cannot merge with a fee part — is the request's fault: 400 TRANSACTION_REJECTED with the
 * ledger's reason, not a 500.
 */
export function userFault<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isGatewayError(err)) throw err;
    const reason = (err instanceof Error ? err.message : String(err)).replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
    throw new GatewayError('TRANSACTION_REJECTED', `${what}: ${reason}`);
  }
}

export function firstFreeSegment(tx: AnyTx): number {
  // `intents` copies every intent out of WASM: only the segment numbers are needed.
  const intents = tx.intents;
  const used = new Set(intents?.keys() ?? []);
  if (intents) freeLedger(...intents.values());
  let seg = 1;
  while (used.has(seg)) seg++;
  return seg;
}

/** The user's transaction in proof-shaped form, for fee estimates (fees of unproven shapes run ~1% low). */
export function proofShaped(user: AnyTx): L.Transaction<L.Signaturish, L.Proof, L.Binding> {
  try {
    return user.mockProve() as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
  } catch {
    return user as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
  }
}
