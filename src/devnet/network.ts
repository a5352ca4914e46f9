// One embedded network: chain, indexer, HTTP endpoint and block schedule. `start` resumes from the
// state directory when there is one, else makes a new genesis dated `genesisAgeMs` in the past;
// `run` then produces a block every `blockTimeMs`. Without `run`, blocks come only from
// `produceBlock()` — the deterministic mode tests use. Block production is serialized. The
// indexer keeps the newest `retainBlocks` blocks in memory; with a state directory, older ones
// are served from its block log (indexer-store.ts).
import type { GraphQLSchema } from 'graphql';
import { createActors, type DevnetActors } from './actors.js';
import { BlockIndexer } from './block-indexer.js';
import { candidateOf, Chain, type Candidate, type ProducedBlock } from './chain.js';
import { registerCounterCircuit } from './counter-contract.js';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { buildPayouts, FAUCET_PAYOUTS_PER_BLOCK, parseFaucetRequest, type FaucetRequest, type Payout } from './faucet.js';
import { genesisCandidates, registrationCandidates, REGISTRATION_DELAY_MS, SETUP_BLOCK_MS } from './genesis.js';
import type { GraphQLContext } from './graphql-context.js';
import { DevnetHttpServer, FAUCET_PATH, GRAPHQL_PATH, GRAPHQL_WS_PATH, SUBMIT_PATH } from './http-server.js';
import type { BlockRecord } from './indexer-records.js';
import { IndexerStore } from './indexer-store.js';
import { sha256Hex } from './keys.js';
import { decodeFinalized, fullChecks, genesisChecks, ledgerDate, L, LIVE_CHECKS_REPORT, release } from './ledger-kit.js';
import type { DevnetLogger } from './logger.js';
import { MockProver } from './mock-prover.js';
import { NetworkPersistence, SNAPSHOT_FORMAT, type ChainSnapshot } from './persistence.js';
import { TrafficGenerator } from './traffic.js';

export interface NetworkConfig {
  name: string;
  networkId: string;
  seed: string;
  sponsorDustSeeds: string[];
  /** 0: blocks only on `produceBlock()`. */
  blockTimeMs: number;
  /** 0 picks a free port. */
  port: number;
  /** This network's own directory; absent: in memory. */
  stateDir?: string;
  /** Blocks the indexer keeps in memory (default DEFAULT_RETAIN_BLOCKS). */
  retainBlocks?: number;
  genesisAgeMs: number;
  now?: () => number;
}

/** Endpoints of one devnet network: what `startDevnet` reports and `/health` lists. */
export interface NetworkInfo {
  name: string;
  networkId: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  submitUrl: string;
  faucetUrl: string;
}

export const MIN_GENESIS_AGE_MS = 60 * 60 * 1000;
/**
 * About 100 minutes at 6 s: the statistics ring's default backfill (1000 blocks) and more than
 * three 30-minute epochs (epoch utilization counts the blocks of the current one).
 */
export const DEFAULT_RETAIN_BLOCKS = 1_000;

export class DevnetNetwork {
  readonly #config: NetworkConfig;
  readonly #now: () => number;
  readonly #log: DevnetLogger;
  readonly #prover: MockProver;
  readonly #store: IndexerStore;
  readonly #http: DevnetHttpServer;
  readonly #persistence: NetworkPersistence | undefined;
  readonly #chain: Chain;
  readonly #actors: DevnetActors;
  #indexer: BlockIndexer;
  readonly #traffic: TrafficGenerator;
  #pending: Candidate[] = [];
  #faucetQueue: FaucetRequest[] = [];
  #busy: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #nextDue = 0;
  #closed = false;
  #info: NetworkInfo | undefined;

  constructor(config: NetworkConfig, schema: GraphQLSchema, prover: MockProver, log: DevnetLogger) {
    if (config.genesisAgeMs < MIN_GENESIS_AGE_MS) {
      throw new DevnetError(DevnetErrorCode.BAD_OPTIONS, 500, `genesisAgeMs must be at least ${MIN_GENESIS_AGE_MS}`);
    }
    this.#config = config;
    this.#now = config.now ?? Date.now;
    this.#log = log;
    this.#prover = prover;
    registerCounterCircuit(prover);
    this.#chain = new Chain(config.networkId);
    this.#actors = createActors(config.name, config.seed, config.sponsorDustSeeds, this.#chain.state.parameters.dust);
    this.#persistence = config.stateDir ? new NetworkPersistence(config.stateDir) : undefined;
    this.#store = new IndexerStore({
      retainBlocks: config.retainBlocks ?? DEFAULT_RETAIN_BLOCKS,
      ...(this.#persistence ? { archive: this.#persistence } : {}),
    });
    this.#indexer = new BlockIndexer(this.#store, config.seed);
    this.#traffic = new TrafficGenerator(this.#actors, config.networkId, prover, log);
    this.#http = new DevnetHttpServer(this, schema, log);
  }

  get info(): NetworkInfo {
    if (!this.#info) throw new Error('network not started');
    return this.#info;
  }

  get store(): IndexerStore {
    return this.#store;
  }

  get height(): number {
    return this.#chain.height;
  }

  #fingerprint(): string {
    return sha256Hex(this.#config.seed, ...this.#actors.sponsors.map((s) => s.dustPublicKey.toString(16)));
  }

  async start(): Promise<NetworkInfo> {
    const saved = this.#persistence?.load(this.#config.networkId, this.#fingerprint(), (bundle) => this.#store.append(bundle));
    if (saved) this.#resume(saved);
    else await this.#genesis();
    this.#store.liveSinceMs = this.#now();
    const base = await this.#http.listen(this.#config.port);
    this.#info = {
      name: this.#config.name,
      networkId: this.#config.networkId,
      graphqlUrl: `${base}${GRAPHQL_PATH}`,
      graphqlWsUrl: `${base.replace('http:', 'ws:')}${GRAPHQL_WS_PATH}`,
      submitUrl: `${base}${SUBMIT_PATH}`,
      faucetUrl: `${base}${FAUCET_PATH}`,
    };
    this.#log.info({ network: this.#config.name, height: this.#chain.height, resumed: saved !== undefined, url: base }, 'devnet network up');
    return this.#info;
  }

  /**
   * Starts the block schedule (not with blockTimeMs 0). Separate from `start` so a worker hosting
   * several networks makes every genesis before any of them competes for the thread with blocks.
   */
  run(): void {
    if (this.#config.blockTimeMs <= 0 || this.#closed || this.#timer) return;
    this.#nextDue = this.#now() + this.#config.blockTimeMs;
    this.#schedule();
  }

  #resume(snapshot: ChainSnapshot): void {
    this.#chain.state = L.LedgerState.deserialize(snapshot.ledgerState);
    this.#chain.height = snapshot.height;
    this.#chain.hash = snapshot.hash;
    this.#chain.timestampMs = snapshot.timestampMs;
    this.#actors.dust.state = L.DustLocalState.deserialize(snapshot.dust);
    this.#actors.shielded.forEach((wallet, i) => {
      const saved = snapshot.shielded[i];
      if (saved) wallet.state = L.ZswapLocalState.deserialize(saved);
    });
    this.#indexer = new BlockIndexer(this.#store, this.#config.seed, snapshot.observer);
  }

  async #genesis(): Promise<void> {
    const t0 = this.#now() - this.#config.genesisAgeMs;
    const { networkId, seed } = this.#config;
    this.#commit(this.#chain.produce(genesisCandidates(this.#chain, this.#actors, networkId, seed, t0), t0, genesisChecks()));
    let time = t0 + REGISTRATION_DELAY_MS;
    let queue = await registrationCandidates(this.#chain.state, this.#actors, networkId, this.#prover, time);
    while (queue.length > 0) {
      const block = this.#chain.produce(queue, time, fullChecks());
      for (const { candidate, reason } of block.rejected) this.#log.error({ hash: candidate.hash, reason }, 'genesis registration rejected');
      this.#commit(block);
      queue = block.deferred;
      time += SETUP_BLOCK_MS;
    }
  }

  #commit(block: ProducedBlock): BlockRecord {
    const { bundle, dustEvents, zswapEvents } = this.#indexer.index(block, this.#chain.state);
    this.#actors.dust.replay(dustEvents);
    for (const wallet of this.#actors.shielded) wallet.replay(zswapEvents);
    if (this.#persistence) {
      this.#persistence.appendBlock(bundle, this.#store.nextIds());
      this.#persistence.saveSnapshot({
        format: SNAPSHOT_FORMAT,
        networkId: this.#config.networkId,
        genesisFingerprint: this.#fingerprint(),
        height: this.#chain.height,
        hash: this.#chain.hash,
        timestampMs: this.#chain.timestampMs ?? block.timestampMs,
        ledgerState: this.#chain.state.serialize(),
        dust: this.#actors.dust.state.serialize(),
        shielded: this.#actors.shielded.map((w) => w.state.serialize()),
        observer: this.#indexer.snapshot(),
      });
    }
    this.#store.append(bundle);
    // Indexed, replayed and saved: free the block's ledger objects now (ledger-kit.ts, `release`).
    release(...block.retired, ...block.applied.map((a) => a.candidate.tx), ...block.rejected.map((r) => r.candidate.tx));
    return bundle.block;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      const now = this.#now();
      // Keep the cadence; after a stall, restart it from now rather than bursting to catch up.
      this.#nextDue = Math.max(this.#nextDue + this.#config.blockTimeMs, now + 1);
      this.produceBlock()
        .catch((err: unknown) => this.#log.error({ network: this.#config.name, err: reasonOf(err) }, 'block production failed'))
        .finally(() => this.#schedule());
    }, Math.max(0, this.#nextDue - this.#now()));
  }

  /** Produces the next block now; resolves with its record once it is visible through the API. */
  produceBlock(): Promise<BlockRecord> {
    const run = this.#busy.then(() => this.#produceLive());
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #produceLive(): Promise<BlockRecord> {
    if (this.#closed) throw new DevnetError(DevnetErrorCode.CLOSED, 503, 'the devnet is closed');
    const started = performance.now();
    const timestampMs = Math.max(this.#now(), (this.#chain.timestampMs ?? 0) + 1);
    const time = ledgerDate(timestampMs);
    const state = this.#chain.state;
    const height = this.#chain.height + 1;
    const submitted = this.#pending.splice(0);
    const requests = this.#faucetQueue.slice(0, FAUCET_PAYOUTS_PER_BLOCK);
    const own: Candidate[] = [];
    const ctx = { networkId: this.#config.networkId, params: state.parameters, time, prover: this.#prover };
    let payouts: Payout[] = [];
    if (requests.length > 0) {
      try {
        payouts = await buildPayouts(this.#actors.treasury, this.#actors.dust, requests, state, ctx);
        own.push(...payouts.map((p) => p.candidate));
        if (payouts.length === 0) this.#log.error({ network: this.#config.name, amount: String(requests[0]?.amount) }, 'the treasury cannot pay the next faucet request');
      } catch (err) {
        this.#log.error({ network: this.#config.name, err: reasonOf(err), requests: requests.length }, 'faucet payout failed');
      }
    }
    own.push(...(await this.#traffic.build({ height, state, time, latestContract: this.#store.latestDeploy })));
    release(ctx.params);
    const block = this.#chain.produce([...submitted, ...own], timestampMs, fullChecks());
    // Requests leave the queue only once paid; the chain keeps payouts in order, so the paid ones are
    // a prefix of the queue and the rest stay at its head for the next block.
    const paid = new Set(block.applied.filter((a) => a.candidate.origin === 'faucet' && a.result.type === 'success').map((a) => a.candidate));
    this.#faucetQueue.splice(0, payouts.filter((p) => paid.has(p.candidate)).reduce((n, p) => n + p.requests.length, 0));
    this.#pending.unshift(...block.deferred.filter((c) => c.origin === 'submitted'));
    // The devnet's own transactions are built afresh for the next block.
    release(...block.deferred.filter((c) => c.origin !== 'submitted').map((c) => c.tx));
    for (const { candidate, reason } of block.rejected) {
      this.#log.warn({ network: this.#config.name, origin: candidate.origin, hash: candidate.hash, reason }, 'transaction dropped at block time');
    }
    const record = this.#commit(block);
    this.#log.debug(
      { network: this.#config.name, height: record.height, transactions: record.transactionIds.length, ms: Math.round(performance.now() - started) },
      'block produced',
    );
    return record;
  }

  context(): GraphQLContext {
    return {
      store: this.#store,
      networkId: this.#config.networkId,
      now: this.#now,
      zswapState: () => this.#chain.state.zswap,
    };
  }

  /** Checks a finalized transaction against the current state and queues it for the next block. */
  submit(bytes: Uint8Array): { accepted: true; hash: string; identifiers: string[]; expectedHeight: number } {
    const tx = decodeFinalized(bytes);
    const candidate: Candidate = { ...candidateOf(tx, 'submitted'), raw: bytes };
    if (this.#pending.some((c) => c.hash === candidate.hash) || this.#store.transactionsByHash(candidate.hash).length > 0) {
      throw new DevnetError(DevnetErrorCode.TX_DUPLICATE, 409, `transaction ${candidate.hash} was already submitted`);
    }
    try {
      this.#chain.validate(tx, Math.max(this.#now(), (this.#chain.timestampMs ?? 0) + 1), fullChecks());
    } catch (err) {
      throw new DevnetError(DevnetErrorCode.TX_REJECTED, 400, reasonOf(err));
    }
    this.#pending.push(candidate);
    return { accepted: true, hash: candidate.hash, identifiers: tx.identifiers(), expectedHeight: this.#chain.height + 1 };
  }

  faucet(body: unknown): { accepted: true; address: string; amount: string; queued: number } {
    const request = parseFaucetRequest(body);
    this.#faucetQueue.push(request);
    return { accepted: true, address: request.address, amount: request.amount.toString(), queued: this.#faucetQueue.length };
  }

  health(): object {
    const latest = this.#store.latestBlock;
    return {
      status: 'ok',
      source: 'embedded-devnet',
      network: this.#config.name,
      networkId: this.#config.networkId,
      height: latest?.height ?? null,
      latestBlockTimestamp: latest?.timestamp ?? null,
      checks: LIVE_CHECKS_REPORT,
      pendingTransactions: this.#pending.length,
      pendingFaucetRequests: this.#faucetQueue.length,
      retainedBlocks: this.#store.retainBlocks,
      oldestRetainedHeight: this.#store.oldestRetainedHeight,
      olderBlocks: this.#store.hasArchive ? 'served from the state directory' : 'pruned',
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#busy;
    this.#store.close();
    await this.#http.close();
    this.#persistence?.close();
  }
}
