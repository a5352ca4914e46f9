/**
 * The one boundary to the Midnight ledger packages. Nothing else imports `@midnight-ntwrk/ledger-v8`
 * or `@midnightntwrk/ledger-v9`: code asks `ledger(era)` for the era's module and reads types from
 * `L` (the shape both eras share, written against ledger 8's declarations). The few calls whose
 * shape differs between the eras have an adapter in each era's entry of `ERA_TABLE` (era.ts), called
 * through here, so callers never branch on the era.
 *
 * Each era's package is loaded on first use (≈ 75 ms, ≈ 85 MB per thread), synchronously through
 * `require` (both packages are ESM without top-level await), so a thread that only ever meets one
 * era pays for one.
 */
import { createRequire } from 'node:module';
import type * as V8 from '@midnight-ntwrk/ledger-v8';
import { ERA_TABLE, type Era, type Ledger } from './era.js';

export * from './era.js';
import { release } from './release.js';
export { release };
export type * as L from '@midnight-ntwrk/ledger-v8';

const require = createRequire(import.meta.url);
const loaded: Partial<Record<Era, Ledger>> = {};

/** The era's ledger package, loaded on first use on this thread. */
export function ledger(era: Era): Ledger {
  return (loaded[era] ??= require(ERA_TABLE[era].package.name) as Ledger);
}

/**
 * The era's package through `import()`, kept as the one `ledger(era)` answers from then on: the
 * instance every ES module that imports the package shares. Plain Node gives `require` the same
 * instance; a loader that compiles packages for `require` (tsx, under the tests) gives another,
 * whose objects the clients' own copy (Midnight.js) refuses ("expected instance of …"). Call it
 * before the first `ledger(era)` where ledger objects meet such a client.
 */
export async function importLedger(era: Era): Promise<Ledger> {
  const imported = (await import(ERA_TABLE[era].package.name)) as Ledger;
  return (loaded[era] ??= imported);
}

/**
 * `offer` with `signatures` added, as its era takes them (`ERA_TABLE`: ledger 9 wraps each one and
 * frees the wrappers).
 */
export function signOffer<S extends V8.Signaturish>(era: Era, offer: V8.UnshieldedOffer<S>, signatures: readonly V8.Signature[]): V8.UnshieldedOffer<S> {
  return ERA_TABLE[era].signOffer(() => ledger(era), offer, signatures);
}

/** The signature inside an offer's signature entry (the inverse of the wrapping `signOffer` does). */
export function signatureOfEntry(era: Era, entry: unknown): V8.Signature {
  return ERA_TABLE[era].signatureOfEntry(entry);
}
