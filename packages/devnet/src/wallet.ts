// The devnet's own accounts. An Actor owns NIGHT (a BIP-340 signing key). A DustWallet and a
// ShieldedWallet follow the chain like real wallets: they replay the blocks' serialized DUST or
// Zswap events into their local state and spend from it. Replays are the expensive part of a
// block (every event updates a Merkle tree), so all devnet NIGHT is registered to ONE devnet DUST
// key, and only the two users that make shielded transfers follow the Zswap events.
import { NIGHT_TOKEN, release, type L, type LedgerKit } from './ledger-kit.js';

/** Keys are objects of the kit's era; the same seed gives the same address in both eras. */
export class Actor {
  readonly kit: LedgerKit;
  readonly signingKey: L.SigningKey;
  readonly verifyingKey: L.SignatureVerifyingKey;
  readonly address: L.UserAddress;

  constructor(nightSeed: Uint8Array, kit: LedgerKit) {
    const { L } = kit;
    this.kit = kit;
    this.signingKey = L.signingKeyFromBip340(nightSeed);
    this.verifyingKey = L.signatureVerifyingKey(this.signingKey);
    this.address = L.addressFromKey(this.verifyingKey);
  }

  /** NIGHT UTXOs owned in `state`, largest first. */
  nightUtxos(state: L.LedgerState): L.Utxo[] {
    const utxos = state.utxo;
    const owned = utxos.filter(this.address);
    release(utxos);
    return [...owned].filter((u) => u.type === NIGHT_TOKEN).sort((a, b) => (a.value === b.value ? 0 : a.value < b.value ? 1 : -1));
  }

  toSpend(utxo: L.Utxo): L.UtxoSpend {
    return { value: utxo.value, owner: this.verifyingKey, type: utxo.type, intentHash: utxo.intentHash, outputNo: utxo.outputNo };
  }
}

/**
 * Local states advance only through chain events, never through the state `spend` returns: within
 * a block each spend reserves its UTXO, and after the block the event replay is the single source
 * of truth (spent UTXOs are gone, successors are in). Events arrive serialized: replaying `Event`
 * objects would consume them (ledger-v8 takes ownership of what it is passed).
 */
export class DustWallet {
  readonly kit: LedgerKit;
  readonly key: L.DustSecretKey;
  #state: L.DustLocalState;
  #unreplayed: Uint8Array[] = [];
  readonly #reserved = new Set<bigint>();

  /** `params`: the chain's DUST parameters, an object of the kit's era. */
  constructor(seed: Uint8Array, params: L.DustParameters, kit: LedgerKit) {
    this.kit = kit;
    this.key = kit.L.DustSecretKey.fromSeed(seed);
    this.#state = new kit.L.DustLocalState(params);
  }

  get publicKey(): L.DustPublicKey {
    return this.key.publicKey;
  }

  /** The local state with every block so far replayed. */
  get state(): L.DustLocalState {
    if (this.#unreplayed.length > 0) {
      const replayed = this.#state.replayRawEvents(this.key, Buffer.concat(this.#unreplayed));
      release(this.#state);
      this.#state = replayed.state;
      release(replayed);
      this.#unreplayed = [];
    }
    return this.#state;
  }

  set state(state: L.DustLocalState) {
    release(this.#state);
    this.#state = state;
    this.#unreplayed = [];
  }

  /**
   * Takes a block's events. Replaying is deferred until the state is next read: one replay of
   * many blocks costs less than one per block, and a genesis is ready before its wallet replays.
   */
  replay(rawEvents: Uint8Array): void {
    this.#reserved.clear();
    if (rawEvents.length > 0) this.#unreplayed.push(rawEvents);
  }

  /** The richest DUST UTXO not yet spent in the block being built, if it covers `atLeast`. */
  reserve(time: Date, atLeast: bigint): L.QualifiedDustOutput | undefined {
    let best: { utxo: L.QualifiedDustOutput; value: bigint } | undefined;
    const state = this.state;
    const params = state.params;
    for (const utxo of state.utxos) {
      if (this.#reserved.has(utxo.nonce)) continue;
      const generation = state.generationInfo(utxo);
      if (!generation) continue;
      const value = this.kit.L.updatedValue(utxo.ctime, utxo.initialValue, generation, time, params);
      if (!best || value > best.value) best = { utxo, value };
    }
    release(params);
    if (!best || best.value < atLeast) return undefined;
    this.#reserved.add(best.utxo.nonce);
    return best.utxo;
  }

  /** The spend alone: the state `spend` returns is left behind (see the class comment). */
  spend(utxo: L.QualifiedDustOutput, fee: bigint, time: Date): L.DustSpend<L.PreProof> {
    const [unused, spend] = this.state.spend(this.key, utxo, fee, time);
    release(unused);
    return spend;
  }
}

export class ShieldedWallet {
  readonly keys: L.ZswapSecretKeys;
  #state: L.ZswapLocalState;
  #unreplayed: Uint8Array[] = [];

  constructor(seed: Uint8Array, kit: LedgerKit) {
    this.keys = kit.L.ZswapSecretKeys.fromSeed(seed);
    this.#state = new kit.L.ZswapLocalState();
  }

  /** The local state with every block so far replayed (deferred like DustWallet's). */
  get state(): L.ZswapLocalState {
    if (this.#unreplayed.length > 0) {
      const replayed = this.#state.replayRawEvents(this.keys, Buffer.concat(this.#unreplayed));
      release(this.#state);
      this.#state = replayed.state;
      release(replayed);
      this.#unreplayed = [];
    }
    return this.#state;
  }

  set state(state: L.ZswapLocalState) {
    release(this.#state);
    this.#state = state;
    this.#unreplayed = [];
  }

  replay(rawEvents: Uint8Array): void {
    if (rawEvents.length > 0) this.#unreplayed.push(rawEvents);
  }

  richestCoin(): L.QualifiedShieldedCoinInfo | undefined {
    let best: L.QualifiedShieldedCoinInfo | undefined;
    for (const coin of this.state.coins) if (!best || coin.value > best.value) best = coin;
    return best;
  }
}
