// What the tests use of Midnight.js 5's HTTP proof provider
// (@midnight-ntwrk/midnight-js-http-client-proof-provider), declared here so that the tests
// type-check where the package is not installed (README.md). Its ledger objects are the project's
// own ledger-v9's, which the tests type themselves.

export interface ProofProvider {
  /** Proves each proof of an unproven transaction through the server; the transaction, proven and unbound. */
  proveTx(unprovenTx: unknown, config?: { readonly timeout?: number }): Promise<unknown>;
}

export function httpClientProofProvider(
  url: string,
  zkConfigProvider: unknown,
  config?: { readonly timeout?: number; readonly headers?: Record<string, string> },
): ProofProvider;
