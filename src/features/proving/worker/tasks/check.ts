/** Task `check`: a proof-server `/check` body of a network of either ledger era in, `midnight:vec(option(u64)):` bytes out (dev or wasm backend). */
import { encodeCheckResult, parseCheckRequest, slice, unversionedPreimage } from '../../wire/wire.js';
import { decode } from '../request.js';
import { provingProviderFor } from '../../../../infra/prover/worker/providers.js';
import { defineTask, requireData } from '../../../../infra/pool/worker/task.js';

export const check = defineTask<'check'>(async (args, data) => {
  const body = requireData(data);
  const request = decode(body, parseCheckRequest, args.era);
  const provider = provingProviderFor(args.backend, args.keyDir, request.ir ? { ir: slice(body, request.ir) } : {}, undefined, args.era);
  return encodeCheckResult(await provider.check(unversionedPreimage(body, request), request.keyLocation));
});
