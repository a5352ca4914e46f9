/**
 * Task `k`: a tagged ZKIR v2 source in, the circuit's k out (the proof server's `/k`). The same for
 * both ledger eras: zkir-v2 reads v2 sources whichever ledger built the circuit. A ZKIR v3 source
 * (Compact 0.36 and later) has no in-process reader on the registry: the routes answer it 400
 * before it gets here (src/features/proving/routes.ts) and send it to a proof server 9 unchanged.
 */
import { GatewayError } from '../../../../core/errors.js';
import { release } from '../../../../infra/ledger/index.js';
import { loadZkir } from '../../../../infra/pool/worker/ledger.js';
import { defineTask, requireData } from '../../../../infra/pool/worker/task.js';

export const k = defineTask<'k'>(async (_args, data) => {
  const ir = requireData(data);
  const zkir = await loadZkir();
  let k: number;
  try {
    const circuit = zkir.Zkir.deserialize(ir);
    k = circuit.getK();
    // Freed only when getK returned: after a panic in zkir the object must not be touched again.
    release(circuit);
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the body is not a ZKIR v2 circuit: ${err instanceof Error ? err.message : String(err)}`);
  }
  return k;
});
