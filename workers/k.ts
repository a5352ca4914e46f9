/** Task `k`: a tagged ZKIR v2 source in, the circuit's k out (the proof server's `/k`). */
import { GatewayError } from '../src/errors.js';
import { release } from '../src/infra/ledger/release.js';
import { loadZkir } from './lib/ledger.js';
import { defineTask, requireData } from './lib/task.js';

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
