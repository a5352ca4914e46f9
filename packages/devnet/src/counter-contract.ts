// A minimal contract the devnet deploys and calls as synthetic traffic: one 64-bit counter in slot 0
// of the state array and one entry point, `increment` — the transcript Compact generates for
// `counter.increment(1)`. It has no circuit: its verifier key is a well-formed placeholder that is
// never checked (contract-proof checks are off), and its proof is mock-shaped.
import { release, type L, type LedgerKit } from './ledger-kit.js';
import type { MockProver } from './mock-prover.js';

export const COUNTER_ENTRY_POINT = 'increment';
const COUNTER_KEY_LOCATION = 'nightgate/devnet/counter/increment';

const SLOT_0: L.Key = {
  tag: 'value',
  value: { value: [new Uint8Array()], alignment: [{ tag: 'atom', value: { tag: 'bytes', length: 1 } }] },
};

const INCREMENT: L.Op<L.AlignedValue>[] = [
  { idx: { cached: false, pushPath: true, path: [SLOT_0] } },
  { addi: { immediate: 1 } },
  { ins: { cached: true, n: 1 } },
];

const EMPTY: L.AlignedValue = { value: [], alignment: [] };

/** `midnight:verifier-key[v6]:` followed by a SCALE-compact length and the key bytes. */
function placeholderVerifierKey(): Uint8Array {
  const body = Buffer.from('nightgate devnet placeholder vk');
  return new Uint8Array(Buffer.concat([Buffer.from('midnight:verifier-key[v6]:'), Buffer.from([body.length << 2]), body]));
}

function counterOperation(kit: LedgerKit): L.ContractOperation {
  const op = new kit.L.ContractOperation();
  op.verifierKey = placeholderVerifierKey();
  return op;
}

export function registerCounterCircuit(prover: MockProver): void {
  prover.registerCircuit(COUNTER_KEY_LOCATION, INCREMENT.length, placeholderVerifierKey());
}

export function counterDeploy(kit: LedgerKit): L.ContractDeploy {
  const { L } = kit;
  const state = new L.ContractState();
  const zero: L.AlignedValue = { value: [new Uint8Array()], alignment: [{ tag: 'atom', value: { tag: 'bytes', length: 8 } }] };
  const array = L.StateValue.newArray();
  const cell = L.StateValue.newCell(zero);
  const value = array.arrayPush(cell);
  const data = new L.ChargedState(value);
  state.data = data;
  const op = counterOperation(kit);
  state.setOperation(COUNTER_ENTRY_POINT, op);
  // Setters and constructors copy: free the parts once the deploy holds them.
  const deploy = new L.ContractDeploy(state);
  release(array, cell, value, data, op, state);
  return deploy;
}

/** A call of `increment` against the contract's current on-chain state. */
export function counterIncrement(kit: LedgerKit, state: L.LedgerState, address: L.ContractAddress): L.ContractCallPrototype | undefined {
  const { L } = kit;
  const contract = state.index(address);
  if (!contract) return undefined;
  const data = contract.data;
  const context = new L.QueryContext(data, address);
  const params = state.parameters;
  const transcript = new L.PreTranscript(context, INCREMENT);
  const [guaranteed, fallible] = L.partitionTranscripts([transcript], params)[0] ?? [];
  const op = counterOperation(kit);
  release(contract, data, context, params, transcript);
  try {
    return new L.ContractCallPrototype(
      address,
      COUNTER_ENTRY_POINT,
      op,
      guaranteed,
      fallible,
      [],
      EMPTY,
      EMPTY,
      L.communicationCommitmentRandomness(),
      COUNTER_KEY_LOCATION,
    );
  } finally {
    release(op);
  }
}
