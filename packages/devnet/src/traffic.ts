// Synthetic traffic: what each live block carries besides submissions and faucet payouts. The
// schedule is a function of the height; each user spends NIGHT in at most one transaction per
// block and each fee takes its own DUST UTXO, all from the previous block's state, so nothing is
// spent twice and every spend proves against a Merkle root the chain already knows.
//   every block        an unshielded NIGHT transfer between two users (it also sweeps up the
//                      sender's smallest UTXOs, so transfers do not grow the UTXO set block by block)
//   height % 3 == 0    a shielded transfer of the test token between the two shielded users
//   height % 10 == 5   a DUST registration (a user re-registers a NIGHT UTXO)
//   height % 20 == 7   a contract deploy (the counter); height % 4 == 1 a call of its `increment`
import type { DevnetActors } from './actors.js';
import { candidateOf, type Candidate } from './chain.js';
import { counterDeploy, counterIncrement } from './counter-contract.js';
import { release, SHIELDED_TOKEN, STAR_PER_NIGHT, type L } from './ledger-kit.js';
import type { DevnetLogger } from './logger.js';
import type { MockProver } from './mock-prover.js';
import { buildFinalized, type BuildContext, type TxSpec } from './tx-builder.js';
import type { Actor, DustWallet, ShieldedWallet } from './wallet.js';

const TTL_MS = 10 * 60 * 1000;
/**
 * Smallest UTXOs a NIGHT transfer spends besides the one it draws from. A transfer makes two
 * outputs (payment and change); without this every user's UTXOs, the ledger's UTXO set and the
 * indexer's records of them grew by a block's worth forever.
 */
const SWEEP_UTXOS = 2;

interface TrafficInput {
  height: number;
  state: L.LedgerState;
  time: Date;
  /** The most recently deployed contract, if any. */
  latestContract: string | undefined;
}

function nightTransfer(sender: Actor, receiver: Actor, payer: DustWallet, state: L.LedgerState, height: number): TxSpec | undefined {
  const [utxo, ...rest] = sender.nightUtxos(state);
  const amount = BigInt(1 + ((height * 7919) % 100)) * STAR_PER_NIGHT;
  if (!utxo || utxo.value <= amount) return undefined;
  const inputs = [utxo, ...rest.slice(-SWEEP_UTXOS)];
  const total = inputs.reduce((sum, u) => sum + u.value, 0n);
  return {
    signer: sender,
    payer,
    inputs,
    outputs: [
      { owner: receiver.address, type: utxo.type, value: amount },
      { owner: sender.address, type: utxo.type, value: total - amount },
    ],
  };
}

function shieldedTransfer(signer: Actor, sender: ShieldedWallet, receiver: ShieldedWallet, payer: DustWallet, time: Date): TxSpec | undefined {
  const { L } = signer.kit;
  const coin = sender.richestCoin();
  if (!coin || coin.value < 2n) return undefined;
  const amount = coin.value / 100n + 1n;
  // The wallet advances through chain events only (wallet.ts): the state `spend` returns is dropped.
  const [unused, input] = sender.state.spend(sender.keys, coin, 0, new Date(time.getTime() + TTL_MS));
  release(unused);
  const to = L.ZswapOutput.new(L.createShieldedCoinInfo(SHIELDED_TOKEN, amount), 0, receiver.keys.coinPublicKey, receiver.keys.encryptionPublicKey);
  const change = L.ZswapOutput.new(
    L.createShieldedCoinInfo(SHIELDED_TOKEN, coin.value - amount),
    0,
    sender.keys.coinPublicKey,
    sender.keys.encryptionPublicKey,
  );
  const parts = [L.ZswapOffer.fromInput(input), L.ZswapOffer.fromOutput(to), L.ZswapOffer.fromOutput(change)] as const;
  const partial = parts[0].merge(parts[1]);
  const zswap = partial.merge(parts[2]);
  release(input, to, change, ...parts, partial);
  return { signer, payer, zswap };
}

function reRegistration(user: Actor, payer: DustWallet, state: L.LedgerState): TxSpec | undefined {
  const utxo = user.nightUtxos(state)[0];
  if (!utxo) return undefined;
  // The NIGHT already generates DUST, so no allowance is left: the fee comes from DUST.
  return {
    signer: user,
    payer,
    inputs: [utxo],
    outputs: [{ owner: user.address, type: utxo.type, value: utxo.value }],
    registration: { dustPublicKey: payer.publicKey, allowFeePayment: 0n },
  };
}

export class TrafficGenerator {
  readonly #actors: DevnetActors;
  readonly #networkId: string;
  readonly #prover: MockProver;
  readonly #log: DevnetLogger;

  constructor(actors: DevnetActors, networkId: string, prover: MockProver, log: DevnetLogger) {
    this.#actors = actors;
    this.#networkId = networkId;
    this.#prover = prover;
    this.#log = log;
  }

  #user(n: number): Actor {
    return this.#actors.users[n % this.#actors.users.length] as Actor;
  }

  #plan({ height: h, state, time, latestContract }: TrafficInput): Array<{ kind: string; spec: () => TxSpec | undefined }> {
    const dust = this.#actors.dust;
    // Distinct spenders per block: users h, h+2 and h+4 (mod 6) for NIGHT; shielded users only spend coins.
    const plan: Array<{ kind: string; spec: () => TxSpec | undefined }> = [
      { kind: 'night-transfer', spec: () => nightTransfer(this.#user(h), this.#user(h + 1), dust, state, h) },
    ];
    if (h % 3 === 0) {
      const [a, b] = this.#actors.shielded as [ShieldedWallet, ShieldedWallet];
      const [from, to] = h % 2 === 0 ? [a, b] : [b, a];
      plan.push({ kind: 'shielded-transfer', spec: () => shieldedTransfer(this.#user(h + 3), from, to, dust, time) });
    }
    if (h % 10 === 5) plan.push({ kind: 'dust-registration', spec: () => reRegistration(this.#user(h + 2), dust, state) });
    const author = this.#user(h + 4);
    if (latestContract === undefined || h % 20 === 7) {
      plan.push({ kind: 'contract-deploy', spec: () => ({ signer: author, payer: dust, deploy: counterDeploy(this.#prover.kit) }) });
    } else if (h % 4 === 1) {
      plan.push({
        kind: 'contract-call',
        spec: () => {
          const call = counterIncrement(this.#prover.kit, state, latestContract);
          return call && { signer: author, payer: dust, call };
        },
      });
    }
    return plan;
  }

  async build(input: TrafficInput): Promise<Candidate[]> {
    const ctx: BuildContext = { kit: this.#prover.kit, networkId: this.#networkId, params: input.state.parameters, time: input.time, prover: this.#prover };
    const out: Candidate[] = [];
    for (const { kind, spec } of this.#plan(input)) {
      let built: TxSpec | undefined;
      try {
        built = spec();
        if (built) out.push(candidateOf(await buildFinalized(built, ctx), 'devnet'));
      } catch (err) {
        // Short of DUST, coins or NIGHT this block: skip the turn; the chain goes on.
        this.#log.warn({ kind, height: input.height, err: err instanceof Error ? err.message : String(err) }, 'synthetic transaction skipped');
      } finally {
        release(built?.zswap, built?.deploy, built?.call);
      }
    }
    release(ctx.params);
    return out;
  }
}
