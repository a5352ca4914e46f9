/** `@nightgate/client`: the typed client of nightgate's APIs, and its Midnight.js adapters. */
export { createClient, type ClientOptions, type LimitOptions, type NetworkOptions, type NightgateClient, type SponsorOptions } from './client.js';
export { NightgateError, isNightgateError, type ErrorCode, type NightgateErrorCode } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { CallOptions, FetchLike, HeadersLike, RequestInitLike, ResponseLike } from './transport.js';
export type * from './types.js';
export {
  nightgateMidnightProvider,
  nightgateProofProvider,
  nightgateProvingProvider,
  sponsoredWalletProvider,
  type ProvingLedger,
  type SponsoringLedger,
  type SubmittableTx,
} from './midnight.js';
