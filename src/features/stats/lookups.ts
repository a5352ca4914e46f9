/**
 * Lookups of one network — block, transaction, contract, address activity, search — fetched
 * from the indexer on demand and served through the lookup cache. Each answer says how long it
 * stays true: data of finalized blocks below the tip is cached longer than data at the tip.
 *
 * Address activity (and search, for a value that may be an address) reads an indexer WebSocket
 * subscription per address: at most `maxAddressStreams` of them are open at once; one more is
 * refused with INDEXER_BUSY instead of opening a socket: the client gets the expired cached answer
 * if there is one (X-Cache: STALE), else 503 with Retry-After. Lookups of one address
 * that differ only in `limit` are cached apart but read the address through one shared stream.
 */
import type { NetworkName } from '../../core/config/index.js';
import { GatewayError } from '../../core/errors.js';
import type { Reply } from '../../core/http/route.js';
import { streamAddressActivity, type AddressTransactionEvent } from './address-activity.js';
import type { BlockWindow } from './block-window.js';
import { toAddressActivity, toBlockDetail, toContractDetail, toTransactionDetail } from './lookup-views.js';
import type { GraphqlHttpClient } from '../../infra/indexer/graphql-http.js';
import type { Fetched, LookupCache } from './lookup-cache.js';
import { hexToAddress, type SearchQuery, type UnshieldedAddress } from './params.js';
import type { IndexerFeatureProbe } from './indexer-features.js';
import { BASELINE_FEATURES, SEARCH_HEIGHT, SEARCH_HEX, documentsFor, type FeatureDocuments } from './queries.js';
import type { SearchHit, SearchResult } from './schemas.js';
import { BlockDetailData, ContractDetailData, SearchHeightData, SearchHexData, TransactionDetailData, expectShape } from './upstream-types.js';
import { iso } from './derive.js';
import { SingleFlight } from '../../core/single-flight.js';
import type { UpstreamCredentials } from '../../core/config/index.js';

/** Data that changes with the next block (the tip, contract state, address activity). */
const TIP = { ttlMs: 6_000, cacheControl: 'public, max-age=6' } as const;
/**
 * A finalized block by height: final on a live network, but testnets get reset and the embedded
 * devnet restarts from genesis, so clients revalidate hourly rather than never.
 */
const FINAL = { ttlMs: 600_000, cacheControl: 'public, max-age=3600' } as const;
/** A block by hash: the hash commits to the content, which can never change. */
const IMMUTABLE = { ttlMs: 3_600_000, cacheControl: 'public, max-age=31536000, immutable' } as const;

export interface LookupDeps {
  network: NetworkName;
  /** Network id for address encoding (`undeployed` on the embedded devnet). */
  networkId: string;
  http: GraphqlHttpClient;
  wsUrl: string;
  credentials?: UpstreamCredentials;
  cache: LookupCache;
  window: BlockWindow;
  timeoutMs: number;
  /** Address streams (one indexer WebSocket each) open at once; one more → INDEXER_BUSY. */
  maxAddressStreams: number;
  /** Chooses the documents by what the indexer supports; without one, the baseline documents. */
  features?: IndexerFeatureProbe | undefined;
}

/** A client refused for want of an address stream retries after this many seconds. */
const BUSY_RETRY_AFTER_S = '1';

/** Everything an address stream read: the address's transactions, and the highest id the indexer had. */
interface AddressRead {
  events: readonly AddressTransactionEvent[];
  highest: number;
}

export class Lookups {
  #addressStreams = 0;
  #addressStreamsRefused = 0;
  /** Address-activity reads in flight, by address: `?limit=1` and `?limit=20` share one stream. */
  readonly #addressReads = new SingleFlight<AddressRead>();

  constructor(private readonly d: LookupDeps) {}

  /** Address streams open now. */
  get addressStreams(): number {
    return this.#addressStreams;
  }

  /** Stream openings refused (INDEXER_BUSY) since start, whether the client then got a STALE answer or the 503. */
  get addressStreamsRefused(): number {
    return this.#addressStreamsRefused;
  }

  block(by: { height: number } | { hash: string }, signal?: () => AbortSignal): Reply | Promise<Reply> {
    const key = 'height' in by ? `block:h:${by.height}` : `block:x:${by.hash}`;
    return this.d.cache.get(
      key,
      async (s) => {
        const { blockDetail } = await this.documents();
        const data = expectShape(BlockDetailData, (await this.d.http.request(blockDetail, { offset: by }, { signal: s })).data, blockDetail.name);
        if (!data.block) throw new GatewayError('BLOCK_NOT_FOUND', 'height' in by ? `No block at height ${by.height}` : `No block with hash ${by.hash}`);
        const tier = 'hash' in by ? IMMUTABLE : this.belowTip(data.block.height) ? FINAL : TIP;
        return { value: toBlockDetail(data.block), ...tier };
      },
      signal,
    );
  }

  transaction(hash: string, signal?: () => AbortSignal): Reply | Promise<Reply> {
    return this.d.cache.get(
      `tx:${hash}`,
      async (s) => {
        const { transactionDetail } = await this.documents();
        const data = expectShape(TransactionDetailData, (await this.d.http.request(transactionDetail, { hash }, { signal: s })).data, transactionDetail.name);
        // A hash names one transaction; should the indexer list several, the latest is the one in force.
        const tx = data.transactions.reduce<(typeof data.transactions)[number] | undefined>((a, b) => (a && a.id > b.id ? a : b), undefined);
        if (!tx) throw new GatewayError('TRANSACTION_NOT_FOUND', `No transaction with hash ${hash}`);
        return { value: toTransactionDetail(tx), ...(this.belowTip(tx.block.height) ? FINAL : TIP) };
      },
      signal,
    );
  }

  contract(address: string, signal?: () => AbortSignal): Reply | Promise<Reply> {
    return this.d.cache.get(
      `contract:${address}`,
      async (s) => {
        const { contractDetail } = await this.documents();
        const data = expectShape(ContractDetailData, (await this.d.http.request(contractDetail, { address }, { signal: s })).data, contractDetail.name);
        if (!data.contractAction) throw new GatewayError('CONTRACT_NOT_FOUND', `No contract at address ${address}`);
        return { value: toContractDetail(data.contractAction), ...TIP };
      },
      signal,
    );
  }

  addressActivity(address: UnshieldedAddress, limit: number, signal?: () => AbortSignal): Reply | Promise<Reply> {
    return this.d.cache.get(
      `address:${address.hex}:${limit}`,
      async (s) => {
        const { events, highest } = await this.#addressReads.run(address.hex, (shared) => this.readAddress(address, shared), s).result;
        // An address that never received anything is a valid address with no activity: empty lists, not 404.
        return { value: toAddressActivity(address, events, highest, limit), ...TIP };
      },
      signal,
    );
  }

  search(q: SearchQuery, query: string, signal?: () => AbortSignal): Reply | Promise<Reply> {
    const key = q.kind === 'height' ? `search:h:${q.height}` : q.kind === 'hex' ? `search:x:${q.hex}` : `search:a:${q.address.hex}`;
    return this.d.cache.get(
      key,
      async (s): Promise<Fetched> => {
        const found = await this.resolve(q, s);
        if (!found) throw new GatewayError('SEARCH_NO_MATCH', `Nothing on ${this.d.network} matches ${query}`);
        const value: SearchResult = Object.assign({ query }, found);
        return { value, ...TIP };
      },
      signal,
    );
  }

  private async resolve(q: SearchQuery, signal: AbortSignal): Promise<SearchHit | undefined> {
    const base = `/api/v1/${this.d.network}`;
    if (q.kind === 'height') {
      const b = expectShape(SearchHeightData, (await this.d.http.request(SEARCH_HEIGHT, { height: q.height }, { signal })).data, SEARCH_HEIGHT.name).block;
      return b
        ? { type: 'block', result: { height: b.height, hash: b.hash, timestamp: iso(b.timestamp), href: `${base}/block?height=${b.height}` } }
        : undefined;
    }
    if (q.kind === 'hex') {
      const isHash = q.hex.length === 64;
      // Partial data is expected: a value that is not, say, a valid contract address may make
      // that one alias fail while another resolves.
      const { data } = await this.d.http.request(SEARCH_HEX, { hex: q.hex, isHash }, { signal, partial: true });
      const r = expectShape(SearchHexData, data, SEARCH_HEX.name);
      if (r.block)
        return {
          type: 'block',
          result: { height: r.block.height, hash: r.block.hash, timestamp: iso(r.block.timestamp), href: `${base}/block?hash=${r.block.hash}` },
        };
      const byHash = r.byHash?.[0];
      if (byHash)
        return {
          type: 'transaction',
          result: { hash: byHash.hash, blockHeight: byHash.block.height, matchedBy: 'hash', href: `${base}/transaction?hash=${byHash.hash}` },
        };
      const byId = r.byIdentifier?.[0];
      if (byId)
        return {
          type: 'transaction',
          result: { hash: byId.hash, blockHeight: byId.block.height, matchedBy: 'identifier', href: `${base}/transaction?hash=${byId.hash}` },
        };
      if (r.contract) {
        const type = r.contract.__typename === 'ContractDeploy' ? 'deploy' : r.contract.__typename === 'ContractCall' ? 'call' : 'update';
        return {
          type: 'contract',
          result: {
            address: r.contract.address,
            latestActionType: type,
            transactionHash: r.contract.transaction.hash,
            href: `${base}/contract?address=${r.contract.address}`,
          },
        };
      }
      if (!isHash) return undefined;
      // Last, a 32-byte value may be an unshielded address: that needs the subscription.
      return this.resolveAddress(hexToAddress(q.hex, this.d.networkId), signal);
    }
    return this.resolveAddress(q.address, signal);
  }

  private async resolveAddress(address: UnshieldedAddress, signal: AbortSignal): Promise<SearchHit | undefined> {
    let any = false;
    // One transaction is proof enough: stop at the first.
    await this.streamAddress(address, signal, () => (any = true));
    if (!any) return undefined;
    return {
      type: 'address',
      result: { address: address.bech32, addressHex: address.hex, href: `/api/v1/${this.d.network}/address-activity?identifier=${address.bech32}` },
    };
  }

  /** Every transaction of an address, through one stream (the cap applies). */
  private async readAddress(address: UnshieldedAddress, signal: AbortSignal): Promise<AddressRead> {
    const events: AddressTransactionEvent[] = [];
    const highest = await this.streamAddress(address, signal, (ev) => {
      events.push(ev);
    });
    return { events, highest };
  }

  /**
   * One address stream, within the cap. Only a cache fill gets here, so a cached answer or a
   * lookup that joins one in flight (single-flight) never counts or is refused: one count per
   * socket. The count goes down however the stream ends (caught up, error, timeout, abort).
   */
  private async streamAddress(
    address: UnshieldedAddress,
    signal: AbortSignal,
    onTransaction: (ev: AddressTransactionEvent) => boolean | void,
  ): Promise<number> {
    // Checked and taken before the first await: no two fills can both see the last free stream.
    if (this.#addressStreams >= this.d.maxAddressStreams) {
      this.#addressStreamsRefused++;
      throw new GatewayError(
        'INDEXER_BUSY',
        `${this.d.maxAddressStreams === 1 ? '1 address lookup is' : `${this.d.maxAddressStreams}` + ` address lookups are`}` +
          ` already reading from the ${this.d.network}` +
          ` indexer; retry shortly`,
        { headers: { 'Retry-After': BUSY_RETRY_AFTER_S } },
      );
    }
    this.#addressStreams++;
    try {
      return await streamAddressActivity(
        {
          wsUrl: this.d.wsUrl,
          ...(this.d.credentials ? { credentials: this.d.credentials } : {}),
          address: address.bech32,
          timeoutMs: this.d.timeoutMs,
          signal,
        },
        onTransaction,
      );
    } finally {
      this.#addressStreams--;
    }
  }

  private documents(): Promise<FeatureDocuments> {
    return this.d.features?.documents() ?? Promise.resolve(documentsFor(BASELINE_FEATURES));
  }

  /** Below the tip the follower holds; unknown tip → treated as the tip (short-lived). */
  private belowTip(height: number): boolean {
    const tip = this.d.window.tip;
    return tip !== undefined && height < tip.height;
  }
}
