/**
 * What a transaction does, as a sponsorship policy judges it: read out of the deserialized
 * transaction by the worker (worker/effects.ts) before anything is reserved, and sent to the main
 * thread as plain data. Both ledger eras give the same shape.
 */

/** One contract call: the contract's address (64 lower-case hex) and the entry point called. */
export interface ContractCallEffect {
  readonly address: string;
  /** The circuit's name (UTF-8); an entry point given as bytes that are not UTF-8 is `0x` + hex. */
  readonly entryPoint: string;
}

export interface TxEffects {
  /** Every contract call, in the transaction's order (segments ascending). */
  readonly calls: readonly ContractCallEffect[];
  /** Addresses of the contracts the transaction deploys. */
  readonly deploys: readonly string[];
  /** Addresses of the contracts whose maintenance authority or verifier keys the transaction updates. */
  readonly maintenance: readonly string[];
  /** An unshielded offer with inputs or outputs (NIGHT or any unshielded token moves). */
  readonly unshielded: boolean;
  /** A Zswap (shielded) offer, guaranteed or fallible. */
  readonly shielded: boolean;
  /** DUST registrations the transaction carries. */
  readonly dustRegistrations: number;
  /** Distinct owners (addresses, 64 lower-case hex) of the unshielded inputs, sorted: the end users. */
  readonly owners: readonly string[];
  /**
   * The user's part's fee at the tip's prices, SPECK (decimal): what the sponsor pays beyond its own
   * fee part. Read only for a policy with a webhook, which is told it.
   */
  readonly userFee?: string;
}
