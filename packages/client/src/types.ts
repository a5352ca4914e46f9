/**
 * Names for the bodies nightgate answers, all from the generated OpenAPI types: a body whose
 * schema changes changes here, and a client method whose route disappears stops compiling.
 */
import type { components, paths } from './openapi-types.js';

type Schemas = components['schemas'];

/** The JSON body of a route's 200 answer. */
type Ok<P extends keyof paths, M extends 'get' | 'post' = 'get'> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } }
  ? B
  : never;

export type Network = Schemas['NetworkInfo']['id'];
export type Health = Ok<'/health'>;
export type Live = Ok<'/livez'>;
export type Ready = Ok<'/readyz'>;
export type OpenApiDocument = Ok<'/api/openapi.json'>;
export type Summary = Ok<'/api/v1/{network}/summary'>;
export type LatestBlock = Ok<'/api/v1/{network}/latest-block'>;
export type BlockTime = Ok<'/api/v1/{network}/block-time'>;
export type BlocksProduced = Ok<'/api/v1/{network}/blocks-produced'>;
export type Uptime = Ok<'/api/v1/{network}/uptime'>;
export type Epoch = Ok<'/api/v1/{network}/epoch'>;
export type DParameter = Ok<'/api/v1/{network}/d-parameter'>;
export type NightSupply = Ok<'/api/v1/{network}/night-supply'>;
export type RecentTransactions = Ok<'/api/v1/{network}/recent-transactions'>;
export type SearchResult = Ok<'/api/v1/{network}/search'>;
export type BlockDetail = Ok<'/api/v1/{network}/block'>;
export type TransactionDetail = Ok<'/api/v1/{network}/transaction'>;
export type ContractDetail = Ok<'/api/v1/{network}/contract'>;
export type AddressActivity = Ok<'/api/v1/{network}/address-activity'>;
export type SponsoredTransaction = Ok<'/prove-and-balance', 'post'>;
export type WalletStatus = Ok<'/wallet-status'>;
/** What POST /submit answers (202): the node took the transaction. */
export type Submitted = Schemas['Submitted'];

/** What proving routes answer: the bytes, and the headers that say who answered and how. */
export interface ProverAnswer {
  bytes: Uint8Array;
  /** `X-Prover`: upstream, native, wasm, or dev (mock proofs, embedded devnet only). */
  prover: string | undefined;
  /** `X-Midnight-Network`: the network whose prover answered. */
  network: string | undefined;
  /** `X-Cache`: HIT from the result cache, MISS when computed. */
  cache: string | undefined;
}

/** A serialized transaction, or a ledger transaction of any era (what has `serialize()`). */
export type TransactionInput = Uint8Array | { serialize(): Uint8Array };
