/**
 * Task `balance`: sponsor one transaction with a server DUST UTXO (src/features/sponsorship/worker/sponsor.ts) and
 * prove it through the network's backend — in-process (dev, wasm) or, for upstream and native,
 * through the proving port to the main thread's backend.
 */
import { GatewayError } from '../../../../core/errors.js';
import { InFlightReservations } from '../../allocator/in-flight.js';
import type { BalanceResult } from '../../common/balance-task.js';
import { provingProviderFor } from '../../../../infra/prover/worker/providers.js';
import { sponsor } from '../sponsor.js';
import { defineTask, requireData } from '../../../../infra/pool/worker/task.js';

export const balance = defineTask<'balance'>(async (args, data, shared, port): Promise<BalanceResult> => {
  const body = requireData(data);
  const [table, snapshot, inFlight] = shared ?? [];
  if (!table || !snapshot || !inFlight)
    throw new GatewayError('INTERNAL', 'the balance task needs the allocator table, the wallet snapshot and the in-flight registry');
  const provider = provingProviderFor(args.prover.backend, args.prover.keyDir, {}, port, args.sponsor.era);
  const holder = { registry: new InFlightReservations(inFlight), entry: args.inFlightEntry };
  return sponsor(body, args.sponsor, table, snapshot, provider, holder);
});
