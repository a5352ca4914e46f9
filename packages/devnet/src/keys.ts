// Deterministic key material for the devnet's own actors. Everything derives from the network's
// genesis seed, so a restart from a state directory finds the same keys, and two networks with
// different seeds never share one.
import { createHash } from 'node:crypto';

/** 32 bytes derived from a root seed and a label (SHA-256 over both, domain-separated). */
export function deriveSeed(rootSeed: string, label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update('nightgate-devnet\0').update(rootSeed).update('\0').update(label).digest());
}

export function hexToBytes(hex: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new Error('not a hex string of whole bytes');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function sha256Hex(...parts: Array<Uint8Array | string>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}
