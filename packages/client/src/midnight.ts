/**
 * Midnight.js adapters, typed structurally (Midnight.js 4 and 5 fit; nothing of theirs is
 * imported): the ledger module is passed in, so one adapter serves ledger 8 and ledger 9 dApps.
 *  - `nightgateProofProvider`: a `ProofProvider` proving every circuit through nightgate's /check
 *    and /prove with the API key (`nightgateProvingProvider` is the ledger `ProvingProvider` under it).
 *  - `sponsoredWalletProvider`: a `WalletProvider` whose `balanceTx` has nightgate's server wallets
 *    pay the DUST fee (/balance-only), the dApp's own wallet keeping its keys.
 */
import type { NightgateClient } from './client.js';
import type { CallOptions } from './transport.js';
import type { Network, SponsoredTransaction, TransactionInput } from './types.js';

export interface ProvingKeyMaterial {
  proverKey: Uint8Array;
  verifierKey: Uint8Array;
  ir: Uint8Array;
}

/** What proving uses of a ledger module: pass the ledger package of the transaction's era, as the caller imported it. */
export interface ProvingLedger<C = unknown> {
  createProvingPayload(serializedPreimage: Uint8Array, overwriteBindingInput: bigint | undefined, keyMaterial?: ProvingKeyMaterial): Uint8Array;
  createCheckPayload(serializedPreimage: Uint8Array, ir?: Uint8Array): Uint8Array;
  parseCheckResult(result: Uint8Array): (bigint | undefined)[];
  CostModel: { initialCostModel(): C };
}

/** Midnight.js' `ZKConfigProvider`, as much as is read: a contract's keys and IR by circuit. */
export interface ZkConfigSource {
  get(circuitId: string): Promise<{ proverKey: Uint8Array; verifierKey: Uint8Array; zkir: Uint8Array }>;
}

/** The ledger's `ProvingProvider` (ledger 9 also asks it for `lookupKey`; ledger 8 never does). */
export interface ProvingProviderLike {
  check(serializedPreimage: Uint8Array, keyLocation: string): Promise<(bigint | undefined)[]>;
  prove(serializedPreimage: Uint8Array, keyLocation: string, overwriteBindingInput?: bigint): Promise<Uint8Array>;
  lookupKey(keyLocation: string): Promise<ProvingKeyMaterial | undefined>;
}

export interface ProvingAdapterOptions<C> {
  ledger: ProvingLedger<C>;
  /** Contract circuits' keys; without it (or for a circuit it does not know) the prover uses its built-in keys. */
  zkConfig?: ZkConfigSource;
  network?: Network;
  /** Default: the ledger's initial cost model. */
  costModel?: C;
}

/** A circuit's key material, or none: built-in circuits (zswap, dust) are proven with the prover's own. */
async function keyMaterial(zkConfig: ZkConfigSource | undefined, keyLocation: string): Promise<ProvingKeyMaterial | undefined> {
  if (!zkConfig) return undefined;
  try {
    const c = await zkConfig.get(keyLocation);
    return { proverKey: c.proverKey, verifierKey: c.verifierKey, ir: c.zkir };
  } catch {
    return undefined;
  }
}

export function nightgateProvingProvider<C>(client: NightgateClient, opts: ProvingAdapterOptions<C>, call: CallOptions = {}): ProvingProviderLike {
  const { ledger, zkConfig } = opts;
  const o = { ...call, ...(opts.network ? { network: opts.network } : {}) };
  return {
    async check(preimage, keyLocation) {
      const ir = (await keyMaterial(zkConfig, keyLocation))?.ir;
      return ledger.parseCheckResult((await client.check(ledger.createCheckPayload(preimage, ir), o)).bytes);
    },
    async prove(preimage, keyLocation, overwriteBindingInput) {
      const material = await keyMaterial(zkConfig, keyLocation);
      return (await client.prove(ledger.createProvingPayload(preimage, overwriteBindingInput, material), o)).bytes;
    },
    lookupKey: (keyLocation) => keyMaterial(zkConfig, keyLocation),
  };
}

/** An unproven ledger transaction: proves itself through a ProvingProvider. */
export interface Provable<C, T> {
  prove(provider: ProvingProviderLike, costModel: C): Promise<T>;
}

/**
 * Midnight.js' `ProofProvider`: `proveTx(unprovenTx, { timeout })` resolves to the proven, unbound
 * transaction, each of its proofs made by nightgate.
 */
export function nightgateProofProvider<C>(client: NightgateClient, opts: ProvingAdapterOptions<C>) {
  return {
    proveTx<T>(unprovenTx: Provable<C, T>, config?: { readonly timeout?: number }): Promise<T> {
      const signal = config?.timeout !== undefined ? AbortSignal.timeout(config.timeout) : undefined;
      const provider = nightgateProvingProvider(client, opts, signal ? { signal } : {});
      return unprovenTx.prove(provider, opts.costModel ?? opts.ledger.CostModel.initialCostModel());
    },
  };
}

/** What balancing uses of a ledger module: reading back the finalized transaction nightgate answers. */
export interface SponsoringLedger {
  Transaction: { deserialize(markerS: 'signature', markerP: 'proof', markerB: 'binding', raw: Uint8Array): unknown };
}

/** The wallet keys a dApp's providers read (Midnight.js' WalletProvider has them, with its own balanceTx). */
export interface WalletKeys {
  getCoinPublicKey(): unknown;
  getEncryptionPublicKey(): unknown;
}

/** The finalized transaction type of the wallet provider being replaced (`FinalizedTransaction`). */
export type BalancedOf<W> = W extends { balanceTx(...args: never[]): Promise<infer F> } ? F : unknown;

export interface SponsoringOptions {
  ledger: SponsoringLedger;
  network?: Network;
  /** The end user, for a key whose policy counts users by `X-Client-ID` (docs/policies.md). */
  clientId?: string;
  /** Sees each sponsorship: fee, `expiresAt` (submit before), `txHash`, which server DUST UTXO paid. */
  onSponsored?: (answer: SponsoredTransaction) => void;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Midnight.js' `WalletProvider` with nightgate paying the DUST fee: `balanceTx(provenTx)` sends the
 * proven transaction to /balance-only and resolves to the finalized (balanced, bound) transaction,
 * ready for `submitTx`; `balanceUnprovenTx` sends an unproven one to /prove-and-balance (proving
 * and fee in one call). The keys are the dApp wallet's. `ttl` is not sent: nightgate sets the fee's
 * expiry (`expiresAt`, seen by `onSponsored`). The transaction must balance in everything but DUST.
 */
export function sponsoredWalletProvider<W extends WalletKeys, F = BalancedOf<W>>(client: NightgateClient, wallet: W, opts: SponsoringOptions) {
  const o = { ...(opts.network ? { network: opts.network } : {}), ...(opts.clientId === undefined ? {} : { clientId: opts.clientId }) };
  const finish = (answer: SponsoredTransaction): F => {
    opts.onSponsored?.(answer);
    return opts.ledger.Transaction.deserialize('signature', 'proof', 'binding', hexBytes(answer.tx)) as F;
  };
  return {
    getCoinPublicKey: (): ReturnType<W['getCoinPublicKey']> => wallet.getCoinPublicKey() as ReturnType<W['getCoinPublicKey']>,
    getEncryptionPublicKey: (): ReturnType<W['getEncryptionPublicKey']> => wallet.getEncryptionPublicKey() as ReturnType<W['getEncryptionPublicKey']>,
    balanceTx: async (tx: TransactionInput, _ttl?: Date): Promise<F> => finish(await client.balanceOnly(tx, o)),
    balanceUnprovenTx: async (tx: TransactionInput, _ttl?: Date): Promise<F> => finish(await client.proveAndBalance(tx, o)),
  };
}

/** A finalized transaction as Midnight.js hands it to `submitTx`. */
export interface SubmittableTx {
  serialize(): Uint8Array;
  identifiers(): string[];
}

/**
 * Midnight.js' `MidnightProvider`: `submitTx` sends the finalized transaction to its network's node
 * through nightgate (POST /submit, the server's node credentials) and resolves to its first
 * identifier, as Midnight.js expects; Midnight.js then watches the indexer for it.
 */
export function nightgateMidnightProvider(client: NightgateClient, opts: { network?: Network } = {}) {
  const o = opts.network ? { network: opts.network } : {};
  return {
    submitTx: async (tx: SubmittableTx): Promise<string> => {
      await client.submit(tx.serialize(), o);
      const [id] = tx.identifiers();
      if (id === undefined) throw new TypeError('the transaction has no identifier');
      return id;
    },
  };
}
