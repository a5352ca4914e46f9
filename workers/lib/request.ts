/**
 * Decoding a proof-server request inside a worker: the same boundary walk as the main thread
 * (src/prover/wire.ts), then the ledger's own parse of the preimage, so nothing reaches a prover
 * that ledger-v8 would not accept as a `PreProof`.
 */
import { GatewayError } from '../../src/errors.js';
import { WireError, versionedPreimage, type PreimageInfo } from '../../src/prover/wire.js';
import { release } from '../../src/infra/ledger/release.js';
import { L } from './ledger.js';

export function decode<T extends PreimageInfo>(body: Uint8Array, parse: (bytes: Uint8Array) => T): T {
  let request: T;
  try {
    request = parse(body);
  } catch (err) {
    if (err instanceof WireError) throw new GatewayError('INVALID_BODY', err.message);
    throw err;
  }
  try {
    // Only whether it parses matters: free the parsed copy now (src/ledger-release.ts).
    release(L.PreProof.deserialize(versionedPreimage(body, request)));
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the proof preimage does not deserialize: ${(err as Error).message}`);
  }
  return request;
}
