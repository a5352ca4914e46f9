/**
 * Decoding a proof-server request inside a worker: the same boundary walk as the main thread
 * (src/features/proving/wire/wire.ts), then the ledger's own parse of the preimage, so nothing reaches a prover
 * that the network's ledger would not accept as a `PreProof`. The body itself does not say its
 * era: both eras build `/prove` and `/check` bodies with the same tags and preimage version, so
 * the era is the network's, given with the task.
 */
import { GatewayError } from '../../../core/errors.js';
import { WireError, versionedPreimage, type PreimageInfo } from '../wire/wire.js';
import { release, type Era } from '../../../infra/ledger/index.js';
import { L } from '../../../infra/pool/worker/ledger.js';

export function decode<T extends PreimageInfo>(body: Uint8Array, parse: (bytes: Uint8Array) => T, era: Era): T {
  let request: T;
  try {
    request = parse(body);
  } catch (err) {
    if (err instanceof WireError) throw new GatewayError('INVALID_BODY', err.message);
    throw err;
  }
  try {
    // Only whether it parses matters: free the parsed copy now.
    release(L(era).PreProof.deserialize(versionedPreimage(body, request)));
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the proof preimage does not deserialize: ${(err as Error).message}`);
  }
  return request;
}
