/**
 * What kind of transaction a body is, from its readable tag alone (LEDGER.md, "Transaction
 * bytes"): `midnight:transaction[v9](<signature>,<proof>,<binding>):` in ledger 8,
 * `midnight:transaction[v12](…)` with `signature[v2]` in ledger 9. Read before any
 * deserialization so a wrong kind is answered 400 naming what was found.
 */
import { GatewayError } from '../../../core/errors.js';
import { eraName, eraOfBytes, type Era } from '../../../infra/ledger/index.js';

type SignatureMarker = 'signature' | 'signature-erased';
type ProofMarker = 'pre-proof' | 'proof' | 'no-proof';
type BindingMarker = 'pre-binding' | 'binding' | 'no-binding';

export type TransactionKind = 'unproven' | 'proven' | 'finalized' | 'unproven-bound' | 'proof-erased';

interface TransactionTag {
  format: string;
  markers: [SignatureMarker, ProofMarker, BindingMarker];
  kind: TransactionKind;
}

const SIGNATURE: Record<string, SignatureMarker> = { 'signature[v1]': 'signature', 'signature[v2]': 'signature', '()': 'signature-erased' };
const PROOF: Record<string, ProofMarker> = { 'proof-preimage': 'pre-proof', proof: 'proof', '()': 'no-proof' };
const BINDING: Record<string, BindingMarker> = { 'embedded-fr[v1]': 'pre-binding', 'pedersen-schnorr[v1]': 'binding', 'pedersen[v1]': 'no-binding' };
const TAG = /^midnight:transaction\[(v\d+)\]\(([^,()]*|\(\)),([^,]*),([^,)]*(?:\[v\d+\])?)\):/;

function kindOf(proof: ProofMarker, binding: BindingMarker): TransactionKind {
  if (proof === 'pre-proof') return binding === 'binding' ? 'unproven-bound' : 'unproven';
  if (proof === 'proof') return binding === 'binding' ? 'finalized' : 'proven';
  return 'proof-erased';
}

/** An article and a name for messages: "an unproven transaction", "a finalized one". */
function describeKind(kind: TransactionKind): string {
  return kind === 'unproven' || kind === 'unproven-bound' ? `an ${kind.replace('-', ' ')} transaction` : `a ${kind.replace('-', ' ')} transaction`;
}

export function readTransactionTag(bytes: Uint8Array): TransactionTag {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 128)).toString('latin1');
  const m = TAG.exec(head);
  if (!m) {
    const shown = head.slice(0, 40).replace(/[^\x20-\x7e]/g, '.');
    throw new GatewayError(
      'WRONG_TRANSACTION_KIND',
      `the body is not a serialized Midnight transaction (it starts "${shown}", expected "midnight:transaction[v9](…):" or "midnight:transaction[v12](…):")`,
    );
  }
  const sig = SIGNATURE[m[2]!];
  const proof = PROOF[m[3]!];
  const binding = BINDING[m[4]!];
  if (!sig || !proof || !binding) throw new GatewayError('WRONG_TRANSACTION_KIND', `unknown transaction variant (${m[2]},${m[3]},${m[4]}) in format ${m[1]}`);
  return { format: m[1]!, markers: [sig, proof, binding], kind: kindOf(proof, binding) };
}

/** Throw WRONG_TRANSACTION_KIND unless the body is one of `accepted`. */
export function expectKind(tag: TransactionTag, accepted: readonly TransactionKind[]): void {
  if (accepted.includes(tag.kind)) return;
  const want = accepted.map(describeKind).join(' or ');
  throw new GatewayError('WRONG_TRANSACTION_KIND', `expected ${want}, got ${describeKind(tag.kind).replace(/ transaction$/, ' one')}`);
}

/**
 * 400 LEDGER_ERA_MISMATCH when the body's header tag is of another ledger era than `era`, the
 * network's (a tag that names no era passes: deserialization then says what is wrong). Read from
 * the tag alone, so the main thread can answer it without loading a ledger.
 */
export function expectEra(bytes: Uint8Array, era: Era): void {
  const found = eraOfBytes(bytes);
  if (found === undefined || found === era) return;
  throw new GatewayError(
    'LEDGER_ERA_MISMATCH',
    `the transaction is a ${eraName(found)} transaction, but this network runs ${eraName(era)}: build it with the ${eraName(era)} packages`,
  );
}

/** 409: the network left `from` for `to` while the request was handled. */
export function eraChanged(from: Era, to: Era): GatewayError {
  return new GatewayError(
    'LEDGER_ERA_CHANGED',
    `the network changed from ${eraName(from)} to ${eraName(to)} during this request; nothing stays reserved: rebuild the transaction for ${eraName(to)}`,
  );
}
