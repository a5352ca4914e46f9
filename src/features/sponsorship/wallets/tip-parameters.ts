/**
 * The tip's ledger parameters, as one network's DUST sync holds them: the bytes the workers price
 * fees with, since when those prices hold, the latest block time the indexer reported, and the
 * chain's DUST parameters the wallets are built on (docs/sponsorship.md, "What happens to a request"), and the fee
 * prices of those bytes for /wallet-status.
 */
import { GraphqlHttpClient } from '../../../infra/indexer/graphql-http.js';
import { eraOfBytes, eraOfProtocolVersion, ledger, release, type Era, type L } from '../../../infra/ledger/index.js';
import { LEDGER_PARAMETERS } from '../common/queries.js';
import type { NetworkSyncInit, TipFees } from './sync-protocol.js';

/**
 * Blocks the indexer's tip may trail the chain's head by when its parameters are read: the fee
 * margin counts the price rise of that many blocks before the read. Counting from the tip block's
 * timestamp instead would price every second a stalled or back-dated chain did not move.
 */
const TIP_LAG_BLOCKS = 2;

export class TipParameters {
  private readonly http: GraphqlHttpClient;
  /** The chain's DUST parameters, read once: every `LedgerParameters.dust` read is a new WASM object. */
  dustParams: L.DustParameters | undefined;
  paramsBytes: Uint8Array | undefined;
  /** The era of the held DUST parameters (those of another era cannot build its wallets). */
  dustParamsEra: Era | undefined;
  /** Since when (ms) the held parameters are the tip's: the tip block's time, never after the read. */
  paramsAt = 0;
  /** The latest block time (ms) the indexer reported: no DUST spend may claim a later ctime. */
  chainTime = 0;
  /** When the prices last read were the tip's, as load bounds it. */
  pricedAt = 0;
  /** The fee prices of the held parameters, and the tip block they were last read at. */
  fees: TipFees | undefined;

  constructor(
    private readonly init: Pick<NetworkSyncInit, 'network' | 'graphqlUrl' | 'timeoutMs' | 'blockTimeMs'> & Partial<Pick<NetworkSyncInit, 'credentials'>>,
    private readonly now: () => number,
  ) {
    this.http = new GraphqlHttpClient(init.graphqlUrl, {
      timeoutMs: init.timeoutMs,
      maxResponseBytes: 16 * 1024 * 1024,
      connections: 2,
      ...(init.credentials ? { headers: init.credentials.headers } : {}),
    });
  }

  /**
   * Reads the tip's parameters; returns whether they differ from those held. `pricedAt` is the tip
   * block's time, not the moment of the read (an indexer a block behind the chain must not make
   * the fee margin one short), but no earlier than TIP_LAG_BLOCKS before the read. The wallets'
   * era is asked for once the indexer has answered: the wallets may switch era while it reads.
   */
  async load(walletEra: () => Era | undefined): Promise<boolean> {
    const res = await this.http.request(LEDGER_PARAMETERS);
    const block = res.data['block'] as { height: number; timestamp?: number; protocolVersion?: number; ledgerParameters?: string } | null;
    if (!block?.ledgerParameters) throw new Error(`the indexer of ${this.init.network} has no block with ledger parameters yet`);
    const readAt = this.now();
    const tipAt = Math.min(readAt, typeof block.timestamp === 'number' ? block.timestamp : readAt);
    this.chainTime = Math.max(this.chainTime, tipAt);
    this.pricedAt = Math.max(tipAt, readAt - TIP_LAG_BLOCKS * this.init.blockTimeMs);
    const bytes = Buffer.from(block.ledgerParameters, 'hex');
    if (this.paramsBytes && Buffer.compare(bytes, this.paramsBytes) === 0) {
      if (this.fees) this.fees = { ...this.fees, atHeight: block.height };
      return false;
    }
    const era = eraOfBytes(bytes) ?? (typeof block.protocolVersion === 'number' ? eraOfProtocolVersion(block.protocolVersion) : undefined);
    if (era === undefined) throw new Error(`the ledger parameters of ${this.init.network} are of no known ledger era`);
    // Eras only move forward: an older era's parameters come from an indexer still behind the
    // switch the wallets have made, and price nothing they can build.
    const current = walletEra();
    if (current !== undefined && era < current) return false;
    this.paramsBytes = bytes;
    this.paramsAt = this.pricedAt;
    const params = ledger(era).LedgerParameters.deserialize(bytes);
    try {
      this.fees = { atHeight: block.height, prices: pricesOf(params.feePrices) };
      // The DUST parameters are read once per era: wallets are built on them, and they change only
      // by a governance update (a new wallet state then follows from the events).
      if (this.dustParamsEra !== era) {
        release(this.dustParams);
        this.dustParams = params.dust;
        this.dustParamsEra = era;
      }
    } finally {
      release(params);
    }
    return true;
  }

  /** Whether the held parameters are of `era` (a snapshot is published only then). */
  isOfEra(era: Era | undefined): boolean {
    return this.paramsBytes !== undefined && era !== undefined && eraOfBytes(this.paramsBytes) === era;
  }

  close(): void {
    void this.http.close();
  }
}

/** `LedgerParameters.feePrices` as the ledger gives them (plain numbers), under shorter names. */
function pricesOf(p: L.FeePrices): TipFees['prices'] {
  return { overall: p.overallPrice, read: p.readFactor, compute: p.computeFactor, blockUsage: p.blockUsageFactor, write: p.writeFactor };
}
