/**
 * The in-process prover backends, as the ledger's own `ProvingProvider` interface (`check`,
 * `prove`, and the `lookupKey` ledger 9 asks for): the same object a `tx.prove(provider,
 * costModel)` call takes in either era, so a task that proves a whole transaction (sponsorship)
 * uses them unchanged.
 *
 *  - `check` is real for both: zkir-v2 runs the circuit's IR over the preimage, with the IR the
 *    request carries or the built-in copy shipped in native/circuits/.
 *  - `wasm` proves with zkir-v2, prover keys and KZG parameters from a MIDNIGHT_PP directory, each
 *    file checked against its pinned SHA-256 first; anything missing fails before zkir starts.
 *  - `dev` answers `prove` with the era's mock-shaped proof of the circuit (dev-proofs.ts).
 *  - `upstream`/`native` answer through the main thread (remote-prover.ts).
 */
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import type { MessagePort } from 'node:worker_threads';
import type { ProverBackendName } from '../../../core/config/index.js';
import { builtinCircuit, builtinIr, builtinProvingKeys, kzgParams, notProvisioned, type ProvingKeys } from '../../../../native/key-material.js';
import { devProof } from './dev-proofs.js';
import { DEFAULT_ERA, provingProvider, release, type Era, type L as LT } from '../../ledger/index.js';
import { loadZkir } from '../../pool/worker/ledger.js';
import { remoteProvingProvider } from './remote-prover.js';

type ProvingProvider = LT.ProvingProvider;

/** What the request itself carried for its circuit (a contract's keys, or just its IR for /check). */
export interface Supplied {
  keys?: ProvingKeys;
  ir?: Uint8Array;
}

/** zkir-v2 failures are the request's fault (the proof server answers them 400 "bad input"). */
function rejected(err: unknown, what: string): GatewayError {
  if (isGatewayError(err)) return err;
  return new GatewayError('PROVER_REJECTED', `${what}: ${err instanceof Error ? err.message : String(err)}`);
}

async function irFor(keyLocation: string, supplied: Supplied): Promise<Uint8Array> {
  const given = supplied.ir ?? supplied.keys?.ir;
  if (given) return given;
  const circuit = builtinCircuit(keyLocation);
  if (!circuit) throw new GatewayError('PROVER_REJECTED', `no IR for circuit ${keyLocation}: it is not a built-in circuit and the request carries none`);
  return builtinIr(circuit);
}

async function check(preimage: Uint8Array, keyLocation: string, supplied: Supplied): Promise<(bigint | undefined)[]> {
  const ir = await irFor(keyLocation, supplied);
  const zkir = await loadZkir();
  const noKeys = new Uint8Array(0);
  try {
    return await zkir.check(preimage, {
      lookupKey: async () => ({ ir, proverKey: noKeys, verifierKey: noKeys }),
      getParams: async (k) => {
        throw new Error(`check needs no public parameters (asked for k=${k})`);
      },
    });
  } catch (err) {
    throw rejected(err, `check of ${keyLocation} failed`);
  }
}

export function devProvingProvider(supplied: Supplied, era: Era = DEFAULT_ERA): ProvingProvider {
  return provingProvider({
    check: (preimage, keyLocation) => check(preimage, keyLocation, supplied),
    prove: async (_preimage, keyLocation) => devProof(keyLocation, era),
  });
}

/**
 * The same for both eras: zkir-v2 proves whatever V2 preimage it is given with the pinned key set
 * (native/key-pins.ts, the ledger-8 proof server's). A ledger-9 circuit whose keys changed (the
 * DUST spend of proof server 9.0.x) needs that key set, which is not pinned here.
 */
function wasmProvingProvider(keyDir: string, supplied: Supplied): ProvingProvider {
  return provingProvider({
    check: (preimage, keyLocation) => check(preimage, keyLocation, supplied),
    async prove(preimage, keyLocation, bindingInput) {
      // Gather everything before zkir starts, so a missing file fails at once (never a hang, never a fetch).
      let keys = supplied.keys;
      if (!keys) {
        const circuit = builtinCircuit(keyLocation);
        if (!circuit) throw notProvisioned(keyLocation, 'it is not a built-in circuit and the request carries no key material');
        keys = await builtinProvingKeys(keyDir, circuit);
      }
      const zkir = await loadZkir();
      let k: number;
      try {
        const circuit = zkir.Zkir.deserialize(keys.ir);
        k = circuit.getK();
        // Freed only when getK returned: after a panic in zkir the object must not be touched again.
        release(circuit);
      } catch (err) {
        throw rejected(err, `the IR of ${keyLocation} is not a ZKIR v2 circuit`);
      }
      const params = await kzgParams(keyDir, k, keyLocation);
      const material = keys;
      try {
        return await zkir.prove(
          preimage,
          {
            lookupKey: async () => material,
            getParams: async (asked) => (asked === k ? params : kzgParams(keyDir, asked, keyLocation)),
          },
          bindingInput,
        );
      } catch (err) {
        throw rejected(err, `proving ${keyLocation} failed`);
      }
    },
  });
}

/**
 * The provider of a backend, inside a worker, for a network of ledger era `era`. `upstream` and
 * `native` live on the main thread: they need the proving port the caller passed with the task
 * (src/infra/prover/proving-port.ts).
 */
export function provingProviderFor(
  backend: ProverBackendName,
  keyDir: string,
  supplied: Supplied,
  port?: MessagePort,
  era: Era = DEFAULT_ERA,
): ProvingProvider {
  switch (backend) {
    case 'dev':
      return devProvingProvider(supplied, era);
    case 'wasm':
      return wasmProvingProvider(keyDir, supplied);
    default:
      if (!port) throw new GatewayError('INTERNAL', `the ${backend} backend proves on the main thread: the task needs a proving port`);
      return remoteProvingProvider(port, era);
  }
}
