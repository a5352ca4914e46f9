/**
 * A sponsorship's admission, before its `balance` task may reserve anything: an `admission` task
 * reads and judges the transaction (worker/sponsor.ts, `readForAdmission`), then, here on the main
 * thread, its unshielded inputs are checked against the chain (input-check.ts) and the key's
 * policy asked (policy/gate.ts). Those two wait on the network — the indexer, and the key owner's
 * webhook for up to its timeout — so they are made with no worker thread held: a key whose webhook
 * never answers holds places in its own share only (key-shares.ts), never a thread of the pool
 * that every key's proofs and sponsorships share.
 */
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import type { Era } from '../../../infra/ledger/index.js';
import type { RunOptions, WorkerPoolComponent } from '../../../infra/pool/worker-pool.js';
import type { AdmissionArgs, SponsorKind } from '../common/balance-task.js';
import type { InputChecker } from '../reservations/input-check.js';
import type { UnshieldedInput } from '../common/balance-task.js';
import type { TaskPolicy } from '../policy/gate.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';

export interface Admission {
  kind: SponsorKind;
  net: SponsoredNetwork;
  era: Era;
  now: number;
  body: Uint8Array;
  /** Checks the inputs; absent: not checked (the server's own splits). */
  inputs: InputChecker | undefined;
  /** Holds the inputs against other transactions spending them (input-holds.ts), with `inputs`; throws 409 INPUT_HELD. */
  holdInputs?: ((inputs: readonly UnshieldedInput[]) => Promise<void>) | undefined;
  /** The key's policy; absent: the key has none that reads the transaction. */
  policy: TaskPolicy | undefined;
  /** The policy's webhook is told the user's part's fee. */
  withFee: boolean;
}

/** Whether `a` needs an admission step at all (else the `balance` task judges the transaction itself). */
export function needsAdmission(a: Pick<Admission, 'inputs' | 'policy'>): boolean {
  return a.inputs !== undefined || a.policy !== undefined;
}

/**
 * Admits the transaction or throws the refusal; answers the earliest TTL of its intents, which the
 * `balance` task is then given (`SponsorArgs.admittedTtl`) instead of judging it again.
 */
export async function admit(pool: WorkerPoolComponent, a: Admission, run: RunOptions & { signal: AbortSignal }): Promise<number> {
  const effects = a.policy ? (a.withFee ? 'withFee' : 'plain') : undefined;
  const args: AdmissionArgs = {
    kind: a.kind,
    era: a.era,
    networkId: a.net.networkId,
    now: a.now,
    blockTimeMs: a.net.blockTimeMs,
    ...(effects ? { effects } : {}),
  };
  const facts = await pool.run('admission', { args, data: a.body, shared: [a.net.snapshot.buffer] }, run);
  try {
    // Inputs first: a user's place is never held, nor the key owner's webhook asked, for a
    // transaction spending what is not on chain or not its signer's (it could never land).
    if (a.inputs) await a.inputs.check(a.net.name, a.era, facts.inputs);
    // Then held against every other spend: on chain an input stays unspent until the answer that
    // spends it lands, and each other spend would hold a DUST UTXO of its own. Held only once the
    // chain says the signer owns it: no one can hold another's UTXO, even for a moment.
    if (a.inputs && a.holdInputs) await a.holdInputs(facts.inputs);
    if (a.policy) {
      if (!facts.effects) throw new GatewayError('INTERNAL', "the admission task did not read the transaction's effects");
      await a.policy.answer(facts.effects);
    }
  } catch (err) {
    // A client that left while its webhook was asked left: that is the answer, as for a task.
    const signal = run.signal;
    throw signal.aborted ? (isGatewayError(signal.reason) ? signal.reason : new GatewayError('CLIENT_ABORTED')) : err;
  }
  return facts.earliestTtl;
}
