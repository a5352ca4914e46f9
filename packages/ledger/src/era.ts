/**
 * Which ledger era a network or a byte string belongs to. Midnight's chain says it in
 * `protocolVersion` (blocks and transactions): 2 000 000 and above run ledger 9. A serialized
 * object says it in its header tag (`midnight:transaction[v12](…):` is ledger 9's transaction);
 * the two eras never read each other's bytes. Thread-agnostic: no ledger package is loaded here.
 */
export type Era = 8 | 9;
export const ERAS: readonly Era[] = [8, 9];
export const DEFAULT_ERA: Era = 9;

/** The first protocol version of ledger 9 (Midnight.js 5 and wallet SDK 2 switch here too). */
export const LEDGER_9_PROTOCOL_VERSION = 2_000_000;

/** The protocol version the embedded devnet reports for each era (node 2.1.101 runs ledger 9.1). */
export const DEVNET_PROTOCOL_VERSION: Record<Era, number> = { 8: 1_000_000, 9: 2_001_000 };

export function eraOfProtocolVersion(protocolVersion: number): Era {
  return protocolVersion >= LEDGER_9_PROTOCOL_VERSION ? 9 : 8;
}

export function isEra(value: unknown): value is Era {
  return value === 8 || value === 9;
}

/** The ledger package each era is read with, as `/health` and the docs name it. */
export const LEDGER_PACKAGES: Record<Era, { name: string; version: string; prerelease: boolean }> = {
  8: { name: '@midnight-ntwrk/ledger-v8', version: '8.1.0', prerelease: false },
  9: { name: '@midnightntwrk/ledger-v9', version: '1.0.0-rc.3', prerelease: true },
};

/**
 * Header tags whose version differs between the eras (measured with ledger-v8 8.1.0 and ledger-v9
 * 1.0.0-rc.3). Objects whose format both eras share (`dust-local-state[v1]`, `zswap-ledger-state[v5]`)
 * carry no era: their reader takes the network's.
 */
const TAG_ERA: ReadonlyArray<readonly [string, Era]> = [
  ['midnight:transaction[v9]', 8],
  ['midnight:transaction[v12]', 9],
  ['midnight:ledger-parameters[v5]', 8],
  ['midnight:ledger-parameters[v8]', 9],
  ['midnight:ledger-state[v13]', 8],
  ['midnight:ledger-state[v18]', 9],
];

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
    if (c === 0x28 /* ( */ || c === 0x3a /* : */ && i >= PREFIX.length) break;
    head += String.fromCharCode(c);
  }
  for (const [tag, era] of TAG_ERA) if (head === tag) return era;
  return undefined;
}

export function eraName(era: Era): string {
  return `ledger ${era}`;
}
