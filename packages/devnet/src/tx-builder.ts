// Builds the devnet's own transactions the way a wallet does: one intent, signed, its fee paid
// from the payer's DUST (or, for a registration, from the allowance of the NIGHT it registers),
// proven with mock-shaped proofs and bound — so every synthetic transaction is a finalized one,
// with a real transaction hash and real serialized bytes.
import { release, type L, type LedgerKit } from './ledger-kit.js';
import type { MockProver } from './mock-prover.js';
import { yieldToServing } from './serving-turn.js';
import type { Actor, DustWallet } from './wallet.js';

/** Fee margin in blocks (an exponent: 1.046^n); transactions are applied in the block they are built for. */
const FEE_MARGIN = 1;
const FEE_ROUNDS = 4;
const TTL_MS = 10 * 60 * 1000;

export interface TxSpec {
  signer: Actor;
  inputs?: L.Utxo[];
  outputs?: L.UtxoOutput[];
  registration?: { dustPublicKey: L.DustPublicKey; allowFeePayment: bigint };
  zswap?: L.UnprovenOffer;
  deploy?: L.ContractDeploy;
  call?: L.ContractCallPrototype;
  /** Pays the fee from its DUST; without a payer the registration's allowance must cover it. */
  payer?: DustWallet;
  /**
   * Where the unshielded offer goes (default guaranteed). The guaranteed section must be quick to
   * dismiss (about four NIGHT outputs beside a fee); the fallible one may hold many (faucet.ts).
   */
  section?: 'guaranteed' | 'fallible';
}

export interface BuildContext {
  /** The era everything below belongs to (the parameters, the actors, the prover). */
  kit: LedgerKit;
  networkId: string;
  params: L.LedgerParameters;
  /** Block time (whole seconds are what the ledger sees). */
  time: Date;
  /** The DUST spend's declared time (`ctime`), when not `time`: to test the validity window. */
  dustTime?: Date;
  prover: MockProver;
}

// Ledger objects live in WASM memory until freed (ledger-release.ts). Getters (`intents`,
// `dustActions`, `guaranteedUnshieldedOffer`, …) return copies and setters copy what they are
// given, so every step below frees what it made or read once it has been copied in.

function assemble(spec: TxSpec, ctx: BuildContext, spend: L.DustSpend<L.PreProof> | undefined): L.UnprovenTransaction {
  const { L } = ctx.kit;
  const ttl = new Date(ctx.time.getTime() + TTL_MS);
  let intent = L.Intent.new(ttl);
  const made: unknown[] = [];
  try {
    if (spec.deploy) intent = replaced(intent, intent.addDeploy(spec.deploy));
    if (spec.call) intent = replaced(intent, intent.addCall(spec.call));
    if (spec.inputs?.length || spec.outputs?.length) {
      const offer = L.UnshieldedOffer.new(
        (spec.inputs ?? []).map((u) => spec.signer.toSpend(u)),
        spec.outputs ?? [],
        [],
      );
      made.push(offer);
      if (spec.section === 'fallible') intent.fallibleUnshieldedOffer = offer;
      else intent.guaranteedUnshieldedOffer = offer;
    }
    const registrations = spec.registration
      ? [new L.DustRegistration<L.SignatureEnabled>('signature', spec.signer.verifyingKey, spec.registration.dustPublicKey, spec.registration.allowFeePayment)]
      : [];
    made.push(...registrations);
    if (spend || registrations.length) {
      const actions = new L.DustActions<L.SignatureEnabled, L.PreProof>(
        'signature',
        'pre-proof',
        ctx.dustTime ?? ctx.time,
        spend ? [spend] : [],
        registrations,
      );
      made.push(actions);
      intent.dustActions = actions;
    }
    const tx = L.Transaction.fromParts(ctx.networkId, spec.zswap, undefined, intent);
    try {
      return sign(ctx.kit, tx, spec.signer);
    } catch (err) {
      release(tx);
      throw err;
    }
  } finally {
    release(intent, ...made);
  }
}

/** `next` in place of `previous`, which is freed (unless the call that made `next` consumed it). */
function replaced<T>(previous: unknown, next: T): T {
  if (next !== previous) release(previous);
  return next;
}

/** Signs every unshielded input (either section) and registration of segment 1 (the only intent built here). */
function sign(kit: LedgerKit, tx: L.UnprovenTransaction, signer: Actor): L.UnprovenTransaction {
  const { L } = kit;
  const segment = 1;
  const intents = tx.intents;
  const intent = intents?.get(segment);
  const made: unknown[] = [];
  try {
    if (!intents || !intent) return tx;
    const signature = L.signData(signer.signingKey, intent.signatureData(segment));
    const guaranteed = intent.guaranteedUnshieldedOffer;
    const fallible = intent.fallibleUnshieldedOffer;
    made.push(guaranteed, fallible);
    if (guaranteed && guaranteed.inputs.length > 0) {
      const signedOffer = kit.signOffer(
        guaranteed,
        guaranteed.inputs.map(() => signature),
      );
      intent.guaranteedUnshieldedOffer = signedOffer;
      made.push(signedOffer);
    }
    if (fallible && fallible.inputs.length > 0) {
      const signedOffer = kit.signOffer(
        fallible,
        fallible.inputs.map(() => signature),
      );
      intent.fallibleUnshieldedOffer = signedOffer;
      made.push(signedOffer);
    }
    const actions = intent.dustActions;
    made.push(actions);
    const unsigned = actions?.registrations ?? [];
    made.push(...unsigned);
    if (actions && unsigned.length > 0) {
      const signed = new L.SignatureEnabled(signature);
      const registrations = unsigned.map((r) => new L.DustRegistration<L.SignatureEnabled>('signature', r.nightKey, r.dustAddress, r.allowFeePayment, signed));
      const spends = actions.spends;
      const resigned = new L.DustActions<L.SignatureEnabled, L.PreProof>('signature', 'pre-proof', actions.ctime, spends, registrations);
      intent.dustActions = resigned;
      made.push(signed, ...registrations, ...spends, resigned);
    }
    tx.intents = intents.set(segment, intent);
    return tx;
  } finally {
    release(...made, ...(intents?.values() ?? []));
  }
}

export async function buildFinalized(spec: TxSpec, ctx: BuildContext): Promise<L.FinalizedTransaction> {
  const transactionCostModel = ctx.params.transactionCostModel;
  const costModel = transactionCostModel.runtimeCostModel;
  const payer = spec.payer;
  const coin = payer?.reserve(ctx.time, 0n);
  try {
    if (payer && !coin) throw new Error('the devnet DUST wallet has no unspent UTXO left in this block');
    let fee = 0n;
    // The fee depends on the transaction, which contains the fee: iterate until the declared fee covers it.
    for (let round = 0; round < FEE_ROUNDS; round++) {
      // Each round proves the whole transaction: requests are served before it (serving-turn.ts).
      await yieldToServing();
      let spend: L.DustSpend<L.PreProof> | undefined;
      let unproven: L.UnprovenTransaction | undefined;
      let proven: L.Transaction<L.SignatureEnabled, L.Proof, L.PreBinding> | undefined;
      try {
        if (payer && coin) {
          spend = payer.spend(coin, fee, ctx.dustTime ?? ctx.time);
          if (!ctx.prover.knowsDustSpend) {
            ctx.prover.learnDustSpend(ctx.networkId, spend, ctx.time, new Date(ctx.time.getTime() + TTL_MS));
          }
        }
        unproven = assemble(spec, ctx, spend);
        proven = await unproven.prove(ctx.kit.provingProvider(ctx.prover), costModel);
        if (!payer) return proven.bind();
        const needed = proven.feesWithMargin(ctx.params, FEE_MARGIN);
        if (needed <= fee) return proven.bind();
        // A little over what this round needs: the next round's spend of it must not need more.
        fee = needed + needed / 100n;
      } finally {
        // Each round's transaction is rebuilt; only the bound one is kept.
        release(unproven, proven, spend);
      }
    }
    throw new Error(`fee did not converge after ${FEE_ROUNDS} rounds`);
  } finally {
    release(costModel, transactionCostModel);
  }
}

/**
 * The allowance a registration may draw its fee from: the DUST its NIGHT input would have
 * generated since that UTXO was created (what wallets declare).
 */
export function registrationAllowance(kit: LedgerKit, state: L.LedgerState, utxo: L.Utxo, dustPublicKey: L.DustPublicKey, time: Date): bigint {
  const utxos = state.utxo;
  const meta = utxos.lookupMeta(utxo);
  release(utxos);
  if (!meta) return 0n;
  const ctime = meta.ctime;
  release(meta);
  const generation: L.DustGenerationInfo = { value: utxo.value, owner: dustPublicKey, nonce: '0'.repeat(64), dtime: undefined };
  const params = state.parameters;
  const dust = params.dust;
  try {
    return kit.L.updatedValue(ctime, 0n, generation, time, dust);
  } finally {
    release(dust, params);
  }
}
