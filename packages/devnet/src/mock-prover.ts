// The devnet's proving provider. Proof checks are off on the devnet, but a transaction must still
// be proven and bound to be finalized (and to have a transaction hash), and its fee depends on the
// proofs' sizes. So proofs are the ledger's own mock shapes: the bytes `mockProve()` puts in each
// place, learned from mock-proven samples of its era. They never verify; they only have the right size.
import { DEFAULT_ERA } from '@nightgate/ledger/era';
import type { KeyMaterial } from '@nightgate/ledger';
import { kitFor, type L, type LedgerKit } from './ledger-kit.js';

const ZSWAP_SPEND = 'midnight/zswap/spend';
const ZSWAP_OUTPUT = 'midnight/zswap/output';
const DUST_SPEND = 'midnight/dust/spend';

export class MockProver implements L.ProvingProvider {
  readonly kit: LedgerKit;
  readonly #shapes = new Map<string, Uint8Array>();
  readonly #checkWidths = new Map<string, number>();
  readonly #keys = new Map<string, KeyMaterial>();
  readonly #contractShape: Uint8Array;

  /** `kit`: the era whose proof shapes it answers (a network makes its own for each era it runs). */
  constructor(networkId: string, kit: LedgerKit = kitFor(DEFAULT_ERA)) {
    const { L } = kit;
    this.kit = kit;
    // Zswap shapes need no chain: a coin inserted into a blank local state can be spent in a sample.
    const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(7));
    const coin = L.createShieldedCoinInfo(L.shieldedToken().raw, 1n);
    const local = new L.ZswapLocalState().insertCoin(keys, coin);
    const [, input] = local.spend(keys, [...local.coins][0] as L.QualifiedShieldedCoinInfo, 0);
    const output = L.ZswapOutput.new(coin, 0, keys.coinPublicKey, keys.encryptionPublicKey);
    const offer = L.Transaction.fromParts(networkId, L.ZswapOffer.fromInput(input).merge(L.ZswapOffer.fromOutput(output))).mockProve().guaranteedOffer;
    this.#shapes.set(ZSWAP_SPEND, (offer!.inputs[0] as L.ZswapInput<L.Proof>).proof.serialize());
    this.#shapes.set(ZSWAP_OUTPUT, (offer!.outputs[0] as L.ZswapOutput<L.Proof>).proof.serialize());
    // Contract circuits have no fixed size; the devnet's own contract gets the zswap-output shape.
    this.#contractShape = this.#shapes.get(ZSWAP_OUTPUT) as Uint8Array;
  }

  get knowsDustSpend(): boolean {
    return this.#shapes.has(DUST_SPEND);
  }

  /** A DUST spend needs a live DUST UTXO, so its shape is learned from the first fee intent built. */
  learnDustSpend(networkId: string, spend: L.DustSpend<L.PreProof>, ctime: Date, ttl: Date): void {
    const { L } = this.kit;
    const intent = L.Intent.new(ttl);
    intent.dustActions = new L.DustActions('signature', 'pre-proof', ctime, [spend], []);
    const proven = L.Transaction.fromParts(networkId).addIntent({ tag: 'specific', value: 1 }, intent).mockProve();
    const shape = [...(proven.intents?.values() ?? [])][0]?.dustActions?.spends[0]?.proof.serialize();
    if (shape) this.#shapes.set(DUST_SPEND, shape);
  }

  /**
   * `check` answers, per public-input block of the circuit (one per VM instruction), whether it was
   * skipped in an untaken branch. Contract calls built by the devnet take every branch.
   */
  registerCircuit(keyLocation: string, instructions: number, verifierKey: Uint8Array): void {
    this.#checkWidths.set(keyLocation, instructions);
    // Ledger 9 asks for a contract circuit's keys before proving it; it parses only the verifier key.
    this.#keys.set(keyLocation, { proverKey: new Uint8Array(), verifierKey, ir: new Uint8Array() });
  }

  async lookupKey(keyLocation: string): Promise<KeyMaterial | undefined> {
    return this.#keys.get(keyLocation);
  }

  async check(_preimage: Uint8Array, keyLocation: string): Promise<(bigint | undefined)[]> {
    return new Array<bigint | undefined>(this.#checkWidths.get(keyLocation) ?? 0).fill(undefined);
  }

  async prove(_preimage: Uint8Array, keyLocation: string): Promise<Uint8Array> {
    const shape = this.#shapes.get(keyLocation) ?? (this.#checkWidths.has(keyLocation) ? this.#contractShape : undefined);
    if (!shape) throw new Error(`the devnet has no mock proof shape for circuit ${keyLocation}`);
    return shape;
  }
}
