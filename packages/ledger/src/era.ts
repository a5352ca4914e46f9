/**
 * Which ledger era a network or a byte string belongs to. Midnight's chain says it in
 * `protocolVersion` (blocks and transactions): 2 000 000 and above run ledger 9. A serialized
 * object says it in its header tag (`midnight:transaction[v12](…):` is ledger 9's transaction);
 * the two eras never read each other's bytes. What differs between the eras, data and calls, is in
 * `ERA_TABLE`: an era is added there (and to `Era` and `ERAS`), and code looks its era up rather
 * than comparing it with a number. Thread-agnostic: no ledger package is loaded here (the calls are
 * handed a way to load the era's package).
 */
import type * as V8 from '@midnight-ntwrk/ledger-v8';
import { release } from './release.js';

export type Era = 8 | 9;
export const ERAS: readonly Era[] = [8, 9];
export const DEFAULT_ERA: Era = 9;

/** A ledger package as the code sees it: ledger 8's declarations, which ledger 9 keeps but for the adapters in `ERA_TABLE`. */
export type Ledger = typeof V8;

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

/** Everything that differs between the eras: its data, and the calls whose shape differs. */
interface EraEntry {
  /** The ledger package the era is read with, as `/health` and the docs name it. */
  readonly package: { readonly name: string; readonly version: string; readonly prerelease: boolean };
  /** The lowest protocol version of the era (Midnight.js 5 and wallet SDK 2 switch at ledger 9's too). */
  readonly firstProtocolVersion: number;
  /** The protocol version the embedded devnet reports for the era. */
  readonly devnetProtocolVersion: number;
  /**
   * Header tags only this era writes (measured with ledger-v8 8.1.0 and ledger-v9 1.0.0-rc.3).
   * Objects whose format the eras share (`dust-local-state[v1]`, `zswap-ledger-state[v5]`) carry
   * no era: their reader takes the network's.
   */
  readonly tags: readonly string[];
  /** `offer` with `signatures` added, as the era's `addSignatures` takes them; `pkg` loads the era's package, if it needs it. */
  signOffer<S extends V8.Signaturish>(pkg: () => Ledger, offer: V8.UnshieldedOffer<S>, signatures: readonly V8.Signature[]): V8.UnshieldedOffer<S>;
  /** The signature inside an offer's signature entry (the inverse of `signOffer`'s wrapping). */
  signatureOfEntry(entry: unknown): V8.Signature;
  /** The signature a DUST registration's `SignatureEnabled` marker carries. */
  registrationSignature(marker: V8.Signaturish): V8.Signature;
  /** What the era's `Transaction.prove` takes. */
  provingProvider(provider: ProvingProviderParts): V8.ProvingProvider;
}

/** Ledger 8 serializes a signature as `midnight:signature[v1]:` then the 64-byte BIP-340 signature. */
const V8_SIGNATURE_BYTES = 64;

/** Each era's entry: the one place an era is described. */
export const ERA_TABLE: Readonly<Record<Era, EraEntry>> = {
  8: {
    package: { name: '@midnight-ntwrk/ledger-v8', version: '8.1.0', prerelease: false },
    firstProtocolVersion: 0,
    devnetProtocolVersion: 1_000_000,
    tags: ['midnight:transaction[v9]', 'midnight:ledger-parameters[v5]', 'midnight:ledger-state[v13]'],
    signOffer: (_pkg, offer, signatures) => offer.addSignatures([...signatures]),
    signatureOfEntry: (entry) => entry as V8.Signature,
    // Ledger 8 exposes the signature only in the marker's bytes.
    registrationSignature: (marker) => {
      const bytes = (marker as V8.SignatureEnabled).serialize();
      return Buffer.from(bytes.subarray(bytes.length - V8_SIGNATURE_BYTES)).toString('hex');
    },
    provingProvider: (provider) => provider as V8.ProvingProvider,
  },
  9: {
    package: { name: '@midnightntwrk/ledger-v9', version: '1.0.0-rc.3', prerelease: true },
    firstProtocolVersion: 2_000_000,
    // Node 2.1.101 runs ledger 9.1.
    devnetProtocolVersion: 2_001_000,
    tags: ['midnight:transaction[v12]', 'midnight:ledger-parameters[v8]', 'midnight:ledger-state[v18]'],
    // Each signature wrapped (`new SignatureEnabled(sig)`); `addSignatures` copies the wrappers,
    // which are freed here (each one is WASM memory until freed: release.ts).
    signOffer: (pkg, offer, signatures) => {
      const SignatureEnabled = pkg().SignatureEnabled;
      const wrapped = signatures.map((sig) => new SignatureEnabled(sig) as unknown as V8.Signature);
      try {
        return offer.addSignatures(wrapped);
      } finally {
        release(...wrapped);
      }
    },
    signatureOfEntry: (entry) => (entry as { value: V8.Signature }).value,
    registrationSignature: (marker) => (marker as unknown as { value: V8.Signature }).value,
    provingProvider,
  },
};

function byEra<T>(field: (entry: EraEntry) => T): Record<Era, T> {
  return Object.fromEntries(ERAS.map((era) => [era, field(ERA_TABLE[era])])) as Record<Era, T>;
}

/** The protocol version the embedded devnet reports for each era. */
export const DEVNET_PROTOCOL_VERSION: Record<Era, number> = byEra((e) => e.devnetProtocolVersion);

/** The ledger package each era is read with, as `/health` and the docs name it. */
export const LEDGER_PACKAGES: Record<Era, EraEntry['package']> = byEra((e) => e.package);

/** The era a protocol version belongs to: the last whose first version it has reached. */
export function eraOfProtocolVersion(protocolVersion: number): Era {
  let found = ERAS[0]!;
  for (const era of ERAS) if (protocolVersion >= ERA_TABLE[era].firstProtocolVersion) found = era;
  return found;
}

export function isEra(value: unknown): value is Era {
  return ERAS.includes(value as Era);
}

const TAG_ERA: ReadonlyArray<readonly [string, Era]> = ERAS.flatMap((era) => ERA_TABLE[era].tags.map((tag) => [tag, era] as const));

const PREFIX = 'midnight:';
/** Longest tag head read: `midnight:` plus a type name and its version. */
const HEAD_BYTES = 48;

/** The era a serialized ledger object was written by, from its header tag; undefined when the tag does not say. */
export function eraOfBytes(bytes: Uint8Array): Era | undefined {
  if (bytes.length < PREFIX.length) return undefined;
  let head = '';
  const n = Math.min(bytes.length, HEAD_BYTES);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0x28 /* ( */ || (c === 0x3a /* : */ && i >= PREFIX.length)) break;
    head += String.fromCharCode(c);
  }
  for (const [tag, era] of TAG_ERA) if (head === tag) return era;
  return undefined;
}

export function eraName(era: Era): string {
  return `ledger ${era}`;
}
