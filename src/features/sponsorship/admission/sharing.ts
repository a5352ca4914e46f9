/**
 * What the sponsorship service asks of the state several instances share: the memory default is
 * no sharing (undefined); redis/sponsorship.ts holds the Redis one.
 */
export interface SponsorshipSharing {
  /** Throws the 503 to answer when this instance cannot sponsor on `network` now. */
  admit(network: string): void;
  /** Throws 503 WALLET_LEASE_LOST unless this instance holds the leases on `network`'s wallets (the pool keeper's own splits). */
  owns(network: string): void;
  /** A previous answer to the same key and bytes from any instance (waits while another instance computes it); undefined: compute it here. */
  lookup(dedupeKey: string, signal: AbortSignal): Promise<string | undefined>;
  /** The answer computed here, for the other instances' retries. */
  answered(dedupeKey: string, body: string): void;
  /** The sponsorship claimed by `lookup` failed: let a retry compute it again. */
  abandoned(dedupeKey: string): void;
  /** Takes one place of the key's share over all instances; false when it is full. Resolves to a member to release later. */
  hold(network: string, keyId: string, cap: number, until: number): Promise<string | false | undefined>;
  /** The reservation `member` took with `hold` has ended (failed, spent or reclaimed). */
  release(network: string, keyId: string, member: string): void;
}
