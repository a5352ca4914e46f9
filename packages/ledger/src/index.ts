/**
 * The one boundary to the Midnight ledger packages. Nothing else imports `@midnight-ntwrk/ledger-v8`
 * or `@midnightntwrk/ledger-v9`: code asks `ledger(era)` for the era's module and reads types from
 * `L` (the shape both eras share, written against ledger 8's declarations). The few calls whose
 * shape differs between the eras have an adapter here, so callers never branch on the era.
 *
 * Each era's package is loaded on first use (≈ 75 ms, ≈ 85 MB per thread), synchronously through
 * `require` (both packages are ESM without top-level await), so a thread that only ever meets one
 * era pays for one.
 */
import { createRequire } from 'node:module';
import type * as V8 from '@midnight-ntwrk/ledger-v8';
import type { Era } from './era.js';

export * from './era.js';
import { release } from './release.js';
export { release };
export type * as L from '@midnight-ntwrk/ledger-v8';

/** A ledger package as the code sees it: ledger 8's declarations, which ledger 9 keeps but for the adapters below. */
export type Ledger = typeof V8;

const require = createRequire(import.meta.url);
const PACKAGE: Record<Era, string> = { 8: '@midnight-ntwrk/ledger-v8', 9: '@midnightntwrk/ledger-v9' };
const loaded: Partial<Record<Era, Ledger>> = {};

/** The era's ledger package, loaded on first use on this thread. */
export function ledger(era: Era): Ledger {
  return (loaded[era] ??= require(PACKAGE[era]) as Ledger);
}

/**
 * The era's package through `import()`, kept as the one `ledger(era)` answers from then on: the
 * instance every ES module that imports the package shares. Plain Node gives `require` the same
 * instance; a loader that compiles packages for `require` (tsx, under the tests) gives another,
 * whose objects the clients' own copy (Midnight.js) refuses ("expected instance of …"). Call it
 * before the first `ledger(era)` where ledger objects meet such a client.
 */
export async function importLedger(era: Era): Promise<Ledger> {
  const imported = (await import(PACKAGE[era])) as Ledger;
  return (loaded[era] ??= imported);
}

/**
 * `offer` with `signatures` added, as each era takes them: ledger 8 takes the signatures
 * themselves, ledger 9 wraps each (`new SignatureEnabled(sig)`) and copies the wrappers, which are
 * freed here (each one is WASM memory until freed: packages/ledger/src/release.ts).
 */
export function signOffer<S extends V8.Signaturish>(era: Era, offer: V8.UnshieldedOffer<S>, signatures: readonly V8.Signature[]): V8.UnshieldedOffer<S> {
  if (era === 8) return offer.addSignatures([...signatures]);
  const SignatureEnabled = ledger(9).SignatureEnabled;
  const wrapped = signatures.map((sig) => new SignatureEnabled(sig) as unknown as V8.Signature);
  try {
    return offer.addSignatures(wrapped);
  } finally {
    release(...wrapped);
  }
}

/** The signature inside an offer's signature entry (the inverse of the wrapping `signOffer` does). */
export function signatureOfEntry(era: Era, entry: unknown): V8.Signature {
  if (era === 8) return entry as V8.Signature;
  return (entry as { value: V8.Signature }).value;
}

/** Key material a proving provider hands ledger 9's `Transaction.prove` for a circuit it is asked about. */
export interface KeyMaterial {
  proverKey: Uint8Array;
  verifierKey: Uint8Array;
  ir: Uint8Array;
}

/** A provider as the code writes it: `lookupKey` only where it has contract circuits' keys to give. */
export type ProvingProviderParts = Pick<V8.ProvingProvider, 'check' | 'prove'> & { lookupKey?: (keyLocation: string) => Promise<KeyMaterial | undefined> };

/**
 * What `Transaction.prove` takes: ledger 9 also asks the provider for `lookupKey` (the key material
 * of a contract circuit; built-in circuits need none), so one without its own answers undefined.
 */
export function provingProvider(provider: ProvingProviderParts): V8.ProvingProvider {
  const lookupKey = provider.lookupKey ? provider.lookupKey.bind(provider) : async () => undefined;
  return { check: provider.check.bind(provider), prove: provider.prove.bind(provider), lookupKey } as V8.ProvingProvider;
}
