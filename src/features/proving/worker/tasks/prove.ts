/** Task `prove`: a proof-server `/prove` body of a network of either ledger era in, `midnight:proof-versioned:` bytes out (dev or wasm backend). */
import { GatewayError } from '../../../../core/errors.js';
import { hasTag, parseProveRequest, slice, unversionedPreimage } from '../../wire/wire.js';
import { decode } from '../request.js';
import { provingProviderFor, type Supplied } from '../../../../infra/prover/worker/providers.js';
import { defineTask, requireData } from '../../../../infra/pool/worker/task.js';

export const prove = defineTask<'prove'>(async (args, data) => {
  const body = requireData(data);
  const request = decode(body, parseProveRequest, args.era);
  const km = request.keyMaterial;
  const supplied: Supplied = km ? { keys: { proverKey: slice(body, km.proverKey), verifierKey: slice(body, km.verifierKey), ir: slice(body, km.ir) } } : {};
  const provider = provingProviderFor(args.backend, args.keyDir, supplied, undefined, args.era);
  const proof = await provider.prove(unversionedPreimage(body, request), request.keyLocation, request.bindingInput);
  if (!hasTag(proof, 'proof')) throw new GatewayError('PROVER_BAD_RESPONSE', `the ${args.backend} prover returned something that is not a versioned proof`);
  return proof;
});
